/* SPDX-License-Identifier: MIT */
/*
 * sim_fidelity.c - the simulator's answers for the readings nvidia-smi prints
 * beyond the basics: JPEG/OFA utilization, encoder stats, margin (T.Limit)
 * temperature, SRAM ECC status, accounting mode, confidential-computing
 * memory, InfoROM versions, GSP firmware mode, addressing mode. Values come
 * from the scenario (docs/SIMULATOR.md, "query fidelity" keys).
 */
#include "sim.h"

#include <stdlib.h>
#include <string.h>

nvmlReturn_t nvmlDeviceGetJpgUtilization(nvmlDevice_t device, unsigned int *utilization,
                                         unsigned int *samplingPeriodUs)
{
    return gs_sim_codec(SIM_SYM_nvmlDeviceGetJpgUtilization, device, GS_SCN_F_JPEG, GS_SCN_N_JPG, utilization,
                     samplingPeriodUs);
}

nvmlReturn_t nvmlDeviceGetOfaUtilization(nvmlDevice_t device, unsigned int *utilization,
                                         unsigned int *samplingPeriodUs)
{
    return gs_sim_codec(SIM_SYM_nvmlDeviceGetOfaUtilization, device, GS_SCN_F_OFA, GS_SCN_N_OFA, utilization,
                     samplingPeriodUs);
}

nvmlReturn_t nvmlDeviceGetEncoderStats(nvmlDevice_t device, unsigned int *sessionCount, unsigned int *averageFps,
                                       unsigned int *averageLatency)
{
    SIM_BEGIN_DEV(nvmlDeviceGetEncoderStats, device, GS_SCN_F_ENCODER);
    if (!sessionCount || !averageFps || !averageLatency)
        return gs_sim_end(&c, NVML_ERROR_INVALID_ARGUMENT);
    *sessionCount = gs_sim_u32(&c, GS_SCN_N_ENC_SESSIONS);
    *averageFps = *sessionCount ? gs_sim_u32(&c, GS_SCN_N_ENC_FPS) : 0;
    *averageLatency = *sessionCount ? gs_sim_u32(&c, GS_SCN_N_ENC_LATENCY) : 0;
    return gs_sim_end(&c, NVML_SUCCESS);
}

nvmlReturn_t nvmlDeviceGetMarginTemperature(nvmlDevice_t device, nvmlMarginTemperature_v1_t *marginTempInfo)
{
    SIM_BEGIN_DEV(nvmlDeviceGetMarginTemperature, device, GS_SCN_F_TLIMIT);
    if (!marginTempInfo)
        return gs_sim_end(&c, NVML_ERROR_INVALID_ARGUMENT);
    if (marginTempInfo->version != nvmlMarginTemperature_v1)
        return gs_sim_end(&c, NVML_ERROR_ARGUMENT_VERSION_MISMATCH);
    marginTempInfo->marginTemperature = (int)gs_sim_num(&c, GS_SCN_N_TEMP_TLIMIT);
    return gs_sim_end(&c, NVML_SUCCESS);
}

/* Every simulated SRAM error count is zero: the scenario's ECC errors are in DRAM. */
nvmlReturn_t nvmlDeviceGetSramEccErrorStatus(nvmlDevice_t device, nvmlEccSramErrorStatus_v1_t *status)
{
    SIM_BEGIN_DEV(nvmlDeviceGetSramEccErrorStatus, device, GS_SCN_F_SRAM_ECC);
    if (!status)
        return gs_sim_end(&c, NVML_ERROR_INVALID_ARGUMENT);
    if (status->version != nvmlEccSramErrorStatus_v1)
        return gs_sim_end(&c, NVML_ERROR_ARGUMENT_VERSION_MISMATCH);
    if (gs_sim_unsupported(c.gpu, GS_SCN_F_ECC) || !gs_sim_u32(&c, GS_SCN_N_ECC))
        return gs_sim_end(&c, NVML_ERROR_NOT_SUPPORTED);
    unsigned version = status->version;
    memset(status, 0, sizeof(*status));
    status->version = version;
    return gs_sim_end(&c, NVML_SUCCESS);
}

nvmlReturn_t nvmlDeviceGetAccountingMode(nvmlDevice_t device, nvmlEnableState_t *mode)
{
    SIM_BEGIN_DEV(nvmlDeviceGetAccountingMode, device, GS_SCN_F_ACCOUNTING);
    if (!mode)
        return gs_sim_end(&c, NVML_ERROR_INVALID_ARGUMENT);
    *mode = gs_sim_u32(&c, GS_SCN_N_ACCOUNTING) ? NVML_FEATURE_ENABLED : NVML_FEATURE_DISABLED;
    return gs_sim_end(&c, NVML_SUCCESS);
}

nvmlReturn_t nvmlDeviceGetAccountingBufferSize(nvmlDevice_t device, unsigned int *bufferSize)
{
    SIM_BEGIN_DEV(nvmlDeviceGetAccountingBufferSize, device, GS_SCN_F_ACCOUNTING);
    if (!bufferSize)
        return gs_sim_end(&c, NVML_ERROR_INVALID_ARGUMENT);
    *bufferSize = gs_sim_u32(&c, GS_SCN_N_ACCT_BUFFER);
    return gs_sim_end(&c, NVML_SUCCESS);
}

nvmlReturn_t nvmlDeviceGetConfComputeProtectedMemoryUsage(nvmlDevice_t device, nvmlMemory_t *memory)
{
    SIM_BEGIN_DEV(nvmlDeviceGetConfComputeProtectedMemoryUsage, device, GS_SCN_F_CONF_COMPUTE);
    if (!memory)
        return gs_sim_end(&c, NVML_ERROR_INVALID_ARGUMENT);
    unsigned long long total = gs_sim_u64(&c, GS_SCN_N_PROT_MEM_TOTAL);
    unsigned long long used = gs_sim_u64(&c, GS_SCN_N_PROT_MEM_USED);
    memory->total = total;
    memory->used = used > total ? total : used;
    memory->free = total - memory->used;
    return gs_sim_end(&c, NVML_SUCCESS);
}

/* ---- InfoROM: a string of "" answers NOT_SUPPORTED for that object --------------------- */

static nvmlReturn_t sim_inforom(enum sim_sym sym, nvmlDevice_t device, enum gs_scn_str which, const char *def,
                                char *version, unsigned length)
{
    struct sim_call c;
    nvmlReturn_t r = gs_sim_begin_dev(&c, sym, device, GS_SCN_F_INFOROM);
    if (r != NVML_SUCCESS)
        return r;
    const char *s = c.gpu->cfg->str[which] ? c.gpu->cfg->str[which] : def;
    if (!s[0])
        return gs_sim_end(&c, NVML_ERROR_NOT_SUPPORTED);
    return gs_sim_end(&c, gs_sim_copy_str(version, length, s));
}

nvmlReturn_t nvmlDeviceGetInforomImageVersion(nvmlDevice_t device, char *version, unsigned int length)
{
    return sim_inforom(SIM_SYM_nvmlDeviceGetInforomImageVersion, device, GS_SCN_S_INFOROM_IMG,
                       "G520.0200.00.05", version, length);
}

nvmlReturn_t nvmlDeviceGetInforomVersion(nvmlDevice_t device, nvmlInforomObject_t object, char *version,
                                         unsigned int length)
{
    static const enum gs_scn_str which[] = {GS_SCN_S_INFOROM_OEM, GS_SCN_S_INFOROM_ECC, GS_SCN_S_INFOROM_PWR};
    static const char *const defs[] = {"2.1", "7.16", ""};

    if ((unsigned)object >= sizeof(which) / sizeof(which[0])) {
        struct sim_call c;
        nvmlReturn_t r = gs_sim_begin_dev(&c, SIM_SYM_nvmlDeviceGetInforomVersion, device, GS_SCN_F_INFOROM);
        return r != NVML_SUCCESS ? r : gs_sim_end(&c, (unsigned)object < NVML_INFOROM_COUNT
                                                          ? NVML_ERROR_NOT_SUPPORTED
                                                          : NVML_ERROR_INVALID_ARGUMENT);
    }
    return sim_inforom(SIM_SYM_nvmlDeviceGetInforomVersion, device, which[object], defs[object], version, length);
}

nvmlReturn_t nvmlDeviceValidateInforom(nvmlDevice_t device)
{
    SIM_BEGIN_DEV(nvmlDeviceValidateInforom, device, GS_SCN_F_INFOROM);
    return gs_sim_end(&c, NVML_SUCCESS);
}

nvmlReturn_t nvmlDeviceGetGspFirmwareMode(nvmlDevice_t device, unsigned int *isEnabled, unsigned int *defaultMode)
{
    SIM_BEGIN_DEV(nvmlDeviceGetGspFirmwareMode, device, GS_SCN_F_GSP);
    if (!isEnabled || !defaultMode)
        return gs_sim_end(&c, NVML_ERROR_INVALID_ARGUMENT);
    *isEnabled = gs_sim_u32(&c, GS_SCN_N_GSP) != 0;
    *defaultMode = gs_sim_u32(&c, GS_SCN_N_GSP_DEFAULT) != 0;
    return gs_sim_end(&c, NVML_SUCCESS);
}

nvmlReturn_t nvmlDeviceGetAddressingMode(nvmlDevice_t device, nvmlDeviceAddressingMode_v1_t *mode)
{
    SIM_BEGIN_DEV(nvmlDeviceGetAddressingMode, device, GS_SCN_F_ADDRESSING);
    if (!mode)
        return gs_sim_end(&c, NVML_ERROR_INVALID_ARGUMENT);
    if (mode->version != nvmlDeviceAddressingMode_v1)
        return gs_sim_end(&c, NVML_ERROR_ARGUMENT_VERSION_MISMATCH);
    mode->value = gs_sim_u32(&c, GS_SCN_N_ADDRESSING);
    return gs_sim_end(&c, NVML_SUCCESS);
}

/* Fabric state 0 ("none", the default) is a GPU outside an NVLink fabric: NOT_SUPPORTED. */
nvmlReturn_t nvmlDeviceGetGpuFabricInfoV(nvmlDevice_t device, nvmlGpuFabricInfo_v3_t *gpuFabricInfo)
{
    SIM_BEGIN_DEV(nvmlDeviceGetGpuFabricInfoV, device, -1);
    if (!gpuFabricInfo)
        return gs_sim_end(&c, NVML_ERROR_INVALID_ARGUMENT);
    if (gpuFabricInfo->version != nvmlGpuFabricInfo_v3)
        return gs_sim_end(&c, NVML_ERROR_ARGUMENT_VERSION_MISMATCH);
    unsigned state = gs_sim_u32(&c, GS_SCN_N_FABRIC_STATE);
    if (!state)
        return gs_sim_end(&c, NVML_ERROR_NOT_SUPPORTED);
    memset((char *)gpuFabricInfo + sizeof(unsigned), 0, sizeof(*gpuFabricInfo) - sizeof(unsigned));
    gpuFabricInfo->state = state;
    gpuFabricInfo->status = NVML_SUCCESS;
    gpuFabricInfo->cliqueId = gs_sim_u32(&c, GS_SCN_N_FABRIC_CLIQUE);
    return gs_sim_end(&c, NVML_SUCCESS);
}

nvmlReturn_t nvmlDeviceGetPlatformInfo(nvmlDevice_t device, nvmlPlatformInfo_v2_t *platformInfo)
{
    SIM_BEGIN_DEV(nvmlDeviceGetPlatformInfo, device, GS_SCN_F_PLATFORM);
    if (!platformInfo)
        return gs_sim_end(&c, NVML_ERROR_INVALID_ARGUMENT);
    if (platformInfo->version != nvmlPlatformInfo_v2)
        return gs_sim_end(&c, NVML_ERROR_ARGUMENT_VERSION_MISMATCH);
    const char *serial = c.gpu->cfg->str[GS_SCN_S_CHASSIS_SERIAL];
    memset((char *)platformInfo + sizeof(unsigned), 0, sizeof(*platformInfo) - sizeof(unsigned));
    if (serial)
        memcpy(platformInfo->chassisSerialNumber, serial,
               strlen(serial) < sizeof(platformInfo->chassisSerialNumber) ? strlen(serial)
                                                                           : sizeof(platformInfo->chassisSerialNumber));
    platformInfo->slotNumber = (unsigned char)gs_sim_u32(&c, GS_SCN_N_PLATFORM_SLOT);
    platformInfo->trayIndex = (unsigned char)gs_sim_u32(&c, GS_SCN_N_PLATFORM_TRAY);
    platformInfo->hostId = (unsigned char)gs_sim_u32(&c, GS_SCN_N_PLATFORM_HOST);
    platformInfo->peerType = (unsigned char)gs_sim_u32(&c, GS_SCN_N_PLATFORM_PEER);
    platformInfo->moduleId = (unsigned char)gs_sim_u32(&c, GS_SCN_N_PLATFORM_MODULE);
    return gs_sim_end(&c, NVML_SUCCESS);
}

nvmlReturn_t nvmlDeviceGetC2cModeInfoV(nvmlDevice_t device, nvmlC2cModeInfo_v1_t *c2cModeInfo)
{
    SIM_BEGIN_DEV(nvmlDeviceGetC2cModeInfoV, device, GS_SCN_F_C2C);
    if (!c2cModeInfo)
        return gs_sim_end(&c, NVML_ERROR_INVALID_ARGUMENT);
    c2cModeInfo->isC2cEnabled = gs_sim_u32(&c, GS_SCN_N_C2C) != 0;
    return gs_sim_end(&c, NVML_SUCCESS);
}

/* The PDI: the scenario's pdi= (hex); a GPU without one answers NOT_SUPPORTED. */
nvmlReturn_t nvmlDeviceGetPdi(nvmlDevice_t device, nvmlPdi_v1_t *pdi)
{
    SIM_BEGIN_DEV(nvmlDeviceGetPdi, device, -1);
    if (!pdi)
        return gs_sim_end(&c, NVML_ERROR_INVALID_ARGUMENT);
    if (pdi->version != nvmlPdi_v1)
        return gs_sim_end(&c, NVML_ERROR_ARGUMENT_VERSION_MISMATCH);
    const char *v = c.gpu->cfg->str[GS_SCN_S_PDI];
    char *end = NULL;
    unsigned long long x = v && v[0] ? strtoull(v, &end, 16) : 0;
    if (!v || !v[0] || *end)
        return gs_sim_end(&c, NVML_ERROR_NOT_SUPPORTED);
    pdi->value = x;
    return gs_sim_end(&c, NVML_SUCCESS);
}
