/* SPDX-License-Identifier: MIT */
/*
 * sim_device.c - per-device NVML readings of the simulator: identity and PCI,
 * memory (v1 and v2 with its version check), BAR1, utilization, encoder and
 * decoder, temperatures and thresholds, fans, power and energy.
 */
#include "sim.h"

#include <stdio.h>
#include <string.h>

nvmlReturn_t gs_sim_get_value(enum sim_sym sym, nvmlDevice_t dev, int feature,
                              unsigned (*value)(const struct sim_call *c, int arg), int arg, unsigned *out)
{
    struct sim_call c;
    nvmlReturn_t r = gs_sim_begin_dev(&c, sym, dev, feature);
    if (r != NVML_SUCCESS)
        return r;
    if (!out)
        return gs_sim_end(&c, NVML_ERROR_INVALID_ARGUMENT);
    *out = value(&c, arg);
    return gs_sim_end(&c, NVML_SUCCESS);
}

static unsigned scn_u32(const struct sim_call *c, int n)
{
    return gs_sim_u32(c, (enum gs_scn_num)n);
}

/* One unsigned reading of a scenario attribute behind a feature switch. */
static nvmlReturn_t sim_get_u32(enum sim_sym sym, nvmlDevice_t dev, int feature, enum gs_scn_num n,
                                unsigned *out)
{
    return gs_sim_get_value(sym, dev, feature, scn_u32, (int)n, out);
}

static nvmlReturn_t sim_get_str(enum sim_sym sym, nvmlDevice_t dev, int feature, const char *which,
                                char *buf, unsigned length)
{
    struct sim_call c;
    char tmp[96];
    nvmlReturn_t r = gs_sim_begin_dev(&c, sym, dev, feature);
    if (r != NVML_SUCCESS)
        return r;
    const struct gs_scn_gpu *cfg = c.gpu->cfg;
    const char *s;
    if (strcmp(which, "name") == 0 && c.mig)
        s = c.mig->name; /* "NVIDIA H100 80GB HBM3 MIG 1g.10gb" */
    else if (strcmp(which, "name") == 0)
        s = cfg->str[GS_SCN_S_NAME] ? cfg->str[GS_SCN_S_NAME] : "NVIDIA Simulated GPU";
    else if (strcmp(which, "uuid") == 0)
        s = c.mig ? c.mig->uuid : c.gpu->uuid;
    else if (strcmp(which, "serial") == 0)
        s = c.gpu->serial;
    else if (strcmp(which, "vbios") == 0)
        s = cfg->str[GS_SCN_S_VBIOS] ? cfg->str[GS_SCN_S_VBIOS] : "92.00.45.00.06";
    else {
        snprintf(tmp, sizeof(tmp), "692-2G506-0200-%03d", 2 + c.gpu->index % 3);
        s = cfg->str[GS_SCN_S_PART_NUMBER] ? cfg->str[GS_SCN_S_PART_NUMBER] : tmp;
    }
    return gs_sim_end(&c, gs_sim_copy_str(buf, length, s));
}

/* ---- identity -------------------------------------------------------------------- */

nvmlReturn_t nvmlDeviceGetIndex(nvmlDevice_t device, unsigned int *index)
{
    SIM_BEGIN_DEV(nvmlDeviceGetIndex, device, -1);
    if (!index)
        return gs_sim_end(&c, NVML_ERROR_INVALID_ARGUMENT);
    *index = c.mig ? c.mig->mig_index : (unsigned)c.gpu->index; /* a MIG handle: its index under the GPU */
    return gs_sim_end(&c, NVML_SUCCESS);
}

nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t device, char *name, unsigned int length)
{
    return sim_get_str(SIM_SYM_nvmlDeviceGetName, device, -1, "name", name, length);
}

nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t device, char *uuid, unsigned int length)
{
    return sim_get_str(SIM_SYM_nvmlDeviceGetUUID, device, -1, "uuid", uuid, length);
}

nvmlReturn_t nvmlDeviceGetSerial(nvmlDevice_t device, char *serial, unsigned int length)
{
    return sim_get_str(SIM_SYM_nvmlDeviceGetSerial, device, GS_SCN_F_SERIAL, "serial", serial, length);
}

nvmlReturn_t nvmlDeviceGetVbiosVersion(nvmlDevice_t device, char *version, unsigned int length)
{
    return sim_get_str(SIM_SYM_nvmlDeviceGetVbiosVersion, device, GS_SCN_F_VBIOS, "vbios", version, length);
}

nvmlReturn_t nvmlDeviceGetBoardPartNumber(nvmlDevice_t device, char *partNumber, unsigned int length)
{
    return sim_get_str(SIM_SYM_nvmlDeviceGetBoardPartNumber, device, GS_SCN_F_PART_NUMBER, "part",
                       partNumber, length);
}

nvmlReturn_t nvmlDeviceGetBrand(nvmlDevice_t device, nvmlBrandType_t *type)
{
    return sim_get_u32(SIM_SYM_nvmlDeviceGetBrand, device, GS_SCN_F_BRAND, GS_SCN_N_BRAND, type);
}

nvmlReturn_t nvmlDeviceGetArchitecture(nvmlDevice_t device, nvmlDeviceArchitecture_t *arch)
{
    struct sim_call c;
    nvmlReturn_t r = gs_sim_begin_dev(&c, SIM_SYM_nvmlDeviceGetArchitecture, device, GS_SCN_F_ARCH);
    if (r != NVML_SUCCESS)
        return r;
    if (!arch)
        return gs_sim_end(&c, NVML_ERROR_INVALID_ARGUMENT);
    double v = gs_sim_num(&c, GS_SCN_N_ARCH);
    *arch = v >= 4294967295.0 ? NVML_DEVICE_ARCH_UNKNOWN : (unsigned)v;
    return gs_sim_end(&c, NVML_SUCCESS);
}

nvmlReturn_t nvmlDeviceGetMinorNumber(nvmlDevice_t device, unsigned int *minor)
{
    return sim_get_u32(SIM_SYM_nvmlDeviceGetMinorNumber, device, GS_SCN_F_MINOR, GS_SCN_N_MINOR, minor);
}

nvmlReturn_t nvmlDeviceGetBoardId(nvmlDevice_t device, unsigned int *boardId)
{
    return sim_get_u32(SIM_SYM_nvmlDeviceGetBoardId, device, GS_SCN_F_BOARD_ID, GS_SCN_N_BOARD_ID, boardId);
}

nvmlReturn_t nvmlDeviceGetCudaComputeCapability(nvmlDevice_t device, int *major, int *minor)
{
    SIM_BEGIN_DEV(nvmlDeviceGetCudaComputeCapability, device, GS_SCN_F_CC);
    if (!major || !minor)
        return gs_sim_end(&c, NVML_ERROR_INVALID_ARGUMENT);
    *major = (int)gs_sim_u32(&c, GS_SCN_N_CC_MAJOR);
    *minor = (int)gs_sim_u32(&c, GS_SCN_N_CC_MINOR);
    return gs_sim_end(&c, NVML_SUCCESS);
}

/* ---- PCI ---------------------------------------------------------------------------- */

static void sim_fill_pci(const struct sim_call *c, nvmlPciInfo_t *pci)
{
    unsigned dom = gs_sim_u32(c, GS_SCN_N_DOMAIN), bus = gs_sim_u32(c, GS_SCN_N_BUS);
    unsigned dev = gs_sim_u32(c, GS_SCN_N_DEVICE);
    memset(pci, 0, sizeof(*pci));
    snprintf(pci->busIdLegacy, sizeof(pci->busIdLegacy), "%04X:%02X:%02X.0", dom & 0xFFFFu,
             bus & 0xFFu, dev & 0x1Fu);
    snprintf(pci->busId, sizeof(pci->busId), "%08X:%02X:%02X.0", dom, bus & 0xFFu, dev & 0x1Fu);
    pci->domain = dom;
    pci->bus = bus & 0xFFu;
    pci->device = dev & 0x1Fu;
    pci->pciDeviceId = gs_sim_u32(c, GS_SCN_N_PCI_DEVICE_ID);
    pci->pciSubSystemId = gs_sim_u32(c, GS_SCN_N_PCI_SUBSYS_ID);
}

static nvmlReturn_t sim_pci(enum sim_sym sym, nvmlDevice_t device, nvmlPciInfo_t *pci)
{
    struct sim_call c;
    nvmlReturn_t r = gs_sim_begin_dev(&c, sym, device, -1);
    if (r != NVML_SUCCESS)
        return r;
    if (!pci)
        return gs_sim_end(&c, NVML_ERROR_INVALID_ARGUMENT);
    sim_fill_pci(&c, pci);
    return gs_sim_end(&c, NVML_SUCCESS);
}

nvmlReturn_t nvmlDeviceGetPciInfo(nvmlDevice_t device, nvmlPciInfo_t *pci)
{
    return sim_pci(SIM_SYM_nvmlDeviceGetPciInfo, device, pci);
}

nvmlReturn_t nvmlDeviceGetPciInfo_v2(nvmlDevice_t device, nvmlPciInfo_t *pci)
{
    return sim_pci(SIM_SYM_nvmlDeviceGetPciInfo_v2, device, pci);
}

nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t device, nvmlPciInfo_t *pci)
{
    return sim_pci(SIM_SYM_nvmlDeviceGetPciInfo_v3, device, pci);
}

nvmlReturn_t nvmlDeviceGetPciInfoExt(nvmlDevice_t device, nvmlPciInfoExt_v1_t *pci)
{
    nvmlPciInfo_t p;
    SIM_BEGIN_DEV(nvmlDeviceGetPciInfoExt, device, -1);
    if (!pci)
        return gs_sim_end(&c, NVML_ERROR_INVALID_ARGUMENT);
    if (pci->version != nvmlPciInfoExt_v1)
        return gs_sim_end(&c, NVML_ERROR_ARGUMENT_VERSION_MISMATCH);
    sim_fill_pci(&c, &p);
    pci->domain = p.domain;
    pci->bus = p.bus;
    pci->device = p.device;
    pci->pciDeviceId = p.pciDeviceId;
    pci->pciSubSystemId = p.pciSubSystemId;
    pci->baseClass = gs_sim_u32(&c, GS_SCN_N_PCI_CLASS);     /* 3: display controller */
    pci->subClass = gs_sim_u32(&c, GS_SCN_N_PCI_SUBCLASS);   /* 0 VGA, 2 3D controller */
    memcpy(pci->busId, p.busId, sizeof(pci->busId));
    return gs_sim_end(&c, NVML_SUCCESS);
}

/* ---- memory -------------------------------------------------------------------------- */

/* A MIG device's memory is its GPU instance's (shared by its compute instances). */
static void sim_mig_memory(const struct sim_call *c, unsigned long long *total, unsigned long long *used)
{
    const struct nvmlGpuInstance_st *gi = c->mig->ci->gi;
    *total = gi->prof->mem_mib << 20;
    *used = gs_sim_gi_mem_used(c, gi);
}

nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t device, nvmlMemory_t *memory)
{
    SIM_BEGIN_DEV(nvmlDeviceGetMemoryInfo, device, GS_SCN_F_MEMORY);
    if (!memory)
        return gs_sim_end(&c, NVML_ERROR_INVALID_ARGUMENT);
    if (c.mig) {
        sim_mig_memory(&c, &memory->total, &memory->used);
        memory->free = memory->total - memory->used;
        return gs_sim_end(&c, NVML_SUCCESS);
    }
    unsigned long long total = gs_sim_u64(&c, GS_SCN_N_MEM_TOTAL);
    unsigned long long reserved = gs_sim_u64(&c, GS_SCN_N_MEM_RESERVED);
    unsigned long long used = gs_sim_mem_used(&c) + (reserved > total ? total : reserved);
    memory->total = total;
    memory->used = used > total ? total : used; /* v1: reserved + allocated */
    memory->free = total - memory->used;
    return gs_sim_end(&c, NVML_SUCCESS);
}

/* Only nvmlMemory_v2 (0x02000028) is accepted; anything else (nvtop passes 2)
 * answers FUNCTION_NOT_FOUND, as real drivers do. */
nvmlReturn_t nvmlDeviceGetMemoryInfo_v2(nvmlDevice_t device, nvmlMemory_v2_t *memory)
{
    SIM_BEGIN_DEV(nvmlDeviceGetMemoryInfo_v2, device, GS_SCN_F_MEMORY);
    if (!memory)
        return gs_sim_end(&c, NVML_ERROR_INVALID_ARGUMENT);
    if (memory->version != nvmlMemory_v2)
        return gs_sim_end(&c, NVML_ERROR_FUNCTION_NOT_FOUND);
    if (c.mig) { /* no reservation inside an instance */
        sim_mig_memory(&c, &memory->total, &memory->used);
        memory->reserved = 0;
        memory->free = memory->total - memory->used;
        return gs_sim_end(&c, NVML_SUCCESS);
    }
    unsigned long long total = gs_sim_u64(&c, GS_SCN_N_MEM_TOTAL);
    unsigned long long reserved = gs_sim_u64(&c, GS_SCN_N_MEM_RESERVED);
    if (reserved > total)
        reserved = total;
    memory->total = total;
    memory->reserved = reserved;
    memory->used = gs_sim_mem_used(&c);
    memory->free = total - reserved - memory->used;
    if (gs_sim_num(&c, GS_SCN_N_MEM_FREE) >= 0) /* drivers report free on its own (a MiB apart) */
        memory->free = gs_sim_u64(&c, GS_SCN_N_MEM_FREE);
    return gs_sim_end(&c, NVML_SUCCESS);
}

nvmlReturn_t nvmlDeviceGetBAR1MemoryInfo(nvmlDevice_t device, nvmlBAR1Memory_t *bar1)
{
    SIM_BEGIN_DEV(nvmlDeviceGetBAR1MemoryInfo, device, GS_SCN_F_BAR1);
    if (!bar1)
        return gs_sim_end(&c, NVML_ERROR_INVALID_ARGUMENT);
    bar1->bar1Total = gs_sim_u64(&c, GS_SCN_N_BAR1_TOTAL);
    bar1->bar1Used = gs_sim_u64(&c, GS_SCN_N_BAR1_USED);
    if (bar1->bar1Used > bar1->bar1Total)
        bar1->bar1Used = bar1->bar1Total;
    bar1->bar1Free = bar1->bar1Total - bar1->bar1Used;
    return gs_sim_end(&c, NVML_SUCCESS);
}

/* ---- utilization ---------------------------------------------------------------------- */

static unsigned sim_pct(const struct sim_call *c, enum gs_scn_num n)
{
    unsigned v = gs_sim_u32(c, n);
    return v > 100 ? 100 : v;
}

nvmlReturn_t nvmlDeviceGetUtilizationRates(nvmlDevice_t device, nvmlUtilization_t *util)
{
    SIM_BEGIN_DEV(nvmlDeviceGetUtilizationRates, device, GS_SCN_F_UTIL);
    if (!util)
        return gs_sim_end(&c, NVML_ERROR_INVALID_ARGUMENT);
    if (gs_sim_u32(&c, GS_SCN_N_MIG))
        return gs_sim_end(&c, NVML_ERROR_NOT_SUPPORTED);
    util->gpu = sim_pct(&c, GS_SCN_N_UTIL);
    util->memory = sim_pct(&c, GS_SCN_N_MEM_UTIL);
    return gs_sim_end(&c, NVML_SUCCESS);
}

nvmlReturn_t gs_sim_codec(enum sim_sym sym, nvmlDevice_t device, int feature, enum gs_scn_num n,
                              unsigned *util, unsigned *period_us)
{
    struct sim_call c;
    nvmlReturn_t r = gs_sim_begin_dev(&c, sym, device, feature);
    if (r != NVML_SUCCESS)
        return r;
    if (!util || !period_us)
        return gs_sim_end(&c, NVML_ERROR_INVALID_ARGUMENT);
    if (gs_sim_u32(&c, GS_SCN_N_MIG))
        return gs_sim_end(&c, NVML_ERROR_NOT_SUPPORTED);
    *util = sim_pct(&c, n);
    *period_us = 167000;
    return gs_sim_end(&c, NVML_SUCCESS);
}

nvmlReturn_t nvmlDeviceGetEncoderUtilization(nvmlDevice_t device, unsigned int *util,
                                             unsigned int *samplingPeriodUs)
{
    return gs_sim_codec(SIM_SYM_nvmlDeviceGetEncoderUtilization, device, GS_SCN_F_ENCODER, GS_SCN_N_ENC, util,
                     samplingPeriodUs);
}

nvmlReturn_t nvmlDeviceGetDecoderUtilization(nvmlDevice_t device, unsigned int *util,
                                             unsigned int *samplingPeriodUs)
{
    return gs_sim_codec(SIM_SYM_nvmlDeviceGetDecoderUtilization, device, GS_SCN_F_DECODER, GS_SCN_N_DEC, util,
                     samplingPeriodUs);
}

/* ---- temperature and fans --------------------------------------------------------------- */

nvmlReturn_t nvmlDeviceGetTemperature(nvmlDevice_t device, nvmlTemperatureSensors_t sensor,
                                      unsigned int *temp)
{
    SIM_BEGIN_DEV(nvmlDeviceGetTemperature, device, GS_SCN_F_TEMP);
    if (!temp || sensor != NVML_TEMPERATURE_GPU)
        return gs_sim_end(&c, NVML_ERROR_INVALID_ARGUMENT);
    *temp = gs_sim_u32(&c, GS_SCN_N_TEMP);
    return gs_sim_end(&c, NVML_SUCCESS);
}

nvmlReturn_t nvmlDeviceGetTemperatureV(nvmlDevice_t device, nvmlTemperature_v1_t *temp)
{
    SIM_BEGIN_DEV(nvmlDeviceGetTemperatureV, device, GS_SCN_F_TEMP);
    if (!temp)
        return gs_sim_end(&c, NVML_ERROR_INVALID_ARGUMENT);
    if (temp->version != nvmlTemperature_v1)
        return gs_sim_end(&c, NVML_ERROR_ARGUMENT_VERSION_MISMATCH);
    if (temp->sensorType != NVML_TEMPERATURE_GPU)
        return gs_sim_end(&c, NVML_ERROR_INVALID_ARGUMENT);
    /* the same integer nvmlDeviceGetTemperature gives at this instant: a
     * driver reads one sensor value and hands it out through both APIs */
    temp->temperature = (int)gs_sim_u32(&c, GS_SCN_N_TEMP);
    return gs_sim_end(&c, NVML_SUCCESS);
}

nvmlReturn_t nvmlDeviceGetTemperatureThreshold(nvmlDevice_t device, nvmlTemperatureThresholds_t type,
                                               unsigned int *temp)
{
    static const enum gs_scn_num which[] = {GS_SCN_N_TEMP_SHUTDOWN, GS_SCN_N_TEMP_SLOWDOWN, GS_SCN_N_TEMP_MEM_MAX,
                                            GS_SCN_N_TEMP_GPU_MAX};
    SIM_BEGIN_DEV(nvmlDeviceGetTemperatureThreshold, device, GS_SCN_F_TEMP_THRESHOLDS);
    if (!temp || (unsigned)type >= NVML_TEMPERATURE_THRESHOLD_COUNT + 1u)
        return gs_sim_end(&c, NVML_ERROR_INVALID_ARGUMENT);
    if ((unsigned)type >= 4) /* acoustic and GPS thresholds: datacenter boards have none */
        return gs_sim_end(&c, NVML_ERROR_NOT_SUPPORTED);
    *temp = gs_sim_u32(&c, which[type]);
    return gs_sim_end(&c, NVML_SUCCESS);
}

nvmlReturn_t nvmlDeviceGetNumFans(nvmlDevice_t device, unsigned int *numFans)
{
    SIM_BEGIN_DEV(nvmlDeviceGetNumFans, device, GS_SCN_F_FAN);
    if (!numFans)
        return gs_sim_end(&c, NVML_ERROR_INVALID_ARGUMENT);
    *numFans = gs_sim_u32(&c, GS_SCN_N_FANS);
    return gs_sim_end(&c, *numFans ? NVML_SUCCESS : NVML_ERROR_NOT_SUPPORTED);
}

static nvmlReturn_t sim_fan(enum sim_sym sym, nvmlDevice_t device, unsigned fan, unsigned *speed)
{
    struct sim_call c;
    nvmlReturn_t r = gs_sim_begin_dev(&c, sym, device, GS_SCN_F_FAN);
    if (r != NVML_SUCCESS)
        return r;
    unsigned fans = gs_sim_u32(&c, GS_SCN_N_FANS);
    if (fans == 0)
        return gs_sim_end(&c, NVML_ERROR_NOT_SUPPORTED);
    if (!speed || fan >= fans)
        return gs_sim_end(&c, NVML_ERROR_INVALID_ARGUMENT);
    /* fans of one board differ by a percent or two */
    *speed = gs_sim_u32(&c, GS_SCN_N_FAN) + fan % 2;
    return gs_sim_end(&c, NVML_SUCCESS);
}

nvmlReturn_t nvmlDeviceGetFanSpeed(nvmlDevice_t device, unsigned int *speed)
{
    return sim_fan(SIM_SYM_nvmlDeviceGetFanSpeed, device, 0, speed);
}

nvmlReturn_t nvmlDeviceGetFanSpeed_v2(nvmlDevice_t device, unsigned int fan, unsigned int *speed)
{
    return sim_fan(SIM_SYM_nvmlDeviceGetFanSpeed_v2, device, fan, speed);
}

/* ---- power and energy -------------------------------------------------------------------- */

nvmlReturn_t nvmlDeviceGetPowerUsage(nvmlDevice_t device, unsigned int *power)
{
    return sim_get_u32(SIM_SYM_nvmlDeviceGetPowerUsage, device, GS_SCN_F_POWER, GS_SCN_N_POWER, power);
}

nvmlReturn_t nvmlDeviceGetPowerManagementLimit(nvmlDevice_t device, unsigned int *limit)
{
    return sim_get_u32(SIM_SYM_nvmlDeviceGetPowerManagementLimit, device, GS_SCN_F_POWER_LIMIT,
                       GS_SCN_N_POWER_LIMIT, limit);
}

nvmlReturn_t nvmlDeviceGetEnforcedPowerLimit(nvmlDevice_t device, unsigned int *limit)
{
    return sim_get_u32(SIM_SYM_nvmlDeviceGetEnforcedPowerLimit, device, GS_SCN_F_POWER_LIMIT,
                       GS_SCN_N_POWER_ENFORCED, limit);
}

nvmlReturn_t nvmlDeviceGetPowerManagementDefaultLimit(nvmlDevice_t device, unsigned int *limit)
{
    return sim_get_u32(SIM_SYM_nvmlDeviceGetPowerManagementDefaultLimit, device, GS_SCN_F_POWER_LIMIT,
                       GS_SCN_N_POWER_DEFAULT, limit);
}

nvmlReturn_t nvmlDeviceGetPowerManagementLimitConstraints(nvmlDevice_t device, unsigned int *minLimit,
                                                          unsigned int *maxLimit)
{
    SIM_BEGIN_DEV(nvmlDeviceGetPowerManagementLimitConstraints, device, GS_SCN_F_POWER_LIMIT);
    if (!minLimit || !maxLimit)
        return gs_sim_end(&c, NVML_ERROR_INVALID_ARGUMENT);
    *minLimit = gs_sim_u32(&c, GS_SCN_N_POWER_MIN);
    *maxLimit = gs_sim_u32(&c, GS_SCN_N_POWER_MAX);
    return gs_sim_end(&c, NVML_SUCCESS);
}

nvmlReturn_t nvmlDeviceGetPowerManagementMode(nvmlDevice_t device, nvmlEnableState_t *mode)
{
    SIM_BEGIN_DEV(nvmlDeviceGetPowerManagementMode, device, GS_SCN_F_POWER_MODE);
    if (!mode)
        return gs_sim_end(&c, NVML_ERROR_INVALID_ARGUMENT);
    *mode = gs_sim_unsupported(c.gpu, GS_SCN_F_POWER_LIMIT) ? NVML_FEATURE_DISABLED : NVML_FEATURE_ENABLED;
    return gs_sim_end(&c, NVML_SUCCESS);
}

nvmlReturn_t nvmlDeviceGetTotalEnergyConsumption(nvmlDevice_t device, unsigned long long *energy)
{
    SIM_BEGIN_DEV(nvmlDeviceGetTotalEnergyConsumption, device, GS_SCN_F_ENERGY);
    if (!energy)
        return gs_sim_end(&c, NVML_ERROR_INVALID_ARGUMENT);
    *energy = (unsigned long long)gs_sim_energy_mj(&c);
    return gs_sim_end(&c, NVML_SUCCESS);
}
