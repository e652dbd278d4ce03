/* SPDX-License-Identifier: MIT */
/*
 * nvml_load.c - find and dlopen libnvidia-ml, then bind every function we use
 * from one table (nvml_syms[]). Each row lists the exported names newest
 * first; the first that dlsym() finds wins and is recorded, so `gpuscope
 * query --debug` can say exactly which ABI we talk to. The choice is made by
 * dlsym alone, never from the driver version string (nvml.md 5.1: headers
 * and version strings lag what libraries export).
 */
#include "backend/nvidia/nvml_load.h"

#include <dlfcn.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/nvidia/nvml_explain.h"

struct nvml_sym {
    const char *names[3]; /* newest first; unused slots NULL */
    size_t offset;        /* of the pointer in struct nvml_fns */
    bool required;        /* the library is unusable without it */
};

#define SYM(field) offsetof(struct nvml_fns, field)
#define DEV(x) "nvmlDevice" x

static const struct nvml_sym nvml_syms[] = {
    { { "nvmlInit_v2", "nvmlInit", NULL }, SYM(init), true },
    { { "nvmlShutdown", NULL, NULL }, SYM(shutdown), true },
    { { "nvmlErrorString", NULL, NULL }, SYM(error_string), false },
    { { "nvmlSystemGetDriverVersion", NULL, NULL }, SYM(driver_version), false },
    { { "nvmlSystemGetNVMLVersion", NULL, NULL }, SYM(nvml_version), false },
    { { "nvmlSystemGetCudaDriverVersion_v2", "nvmlSystemGetCudaDriverVersion", NULL },
      SYM(cuda_version), false },
    { { DEV("GetCount_v2"), DEV("GetCount"), NULL }, SYM(count), true },
    { { DEV("GetHandleByIndex_v2"), DEV("GetHandleByIndex"), NULL }, SYM(handle_by_index), true },
    /* static facts */
    { { DEV("GetName"), NULL, NULL }, SYM(name), false },
    { { DEV("GetUUID"), NULL, NULL }, SYM(uuid), false },
    { { DEV("GetSerial"), NULL, NULL }, SYM(serial), false },
    { { DEV("GetPciInfo_v3"), DEV("GetPciInfo_v2"), DEV("GetPciInfo") }, SYM(pci_info), false },
    { { DEV("GetBoardId"), NULL, NULL }, SYM(board_id), false },
    { { DEV("GetVbiosVersion"), NULL, NULL }, SYM(vbios), false },
    { { DEV("GetArchitecture"), NULL, NULL }, SYM(arch), false },
    { { DEV("GetCudaComputeCapability"), NULL, NULL }, SYM(cuda_cc), false },
    { { DEV("GetBrand"), NULL, NULL }, SYM(brand), false },
    { { DEV("GetMinorNumber"), NULL, NULL }, SYM(minor_number), false },
    { { DEV("GetTemperatureThreshold"), NULL, NULL }, SYM(temp_threshold), false },
    { { DEV("GetPowerManagementDefaultLimit"), NULL, NULL }, SYM(power_default_limit), false },
    { { DEV("GetPowerManagementLimitConstraints"), NULL, NULL }, SYM(power_constraints), false },
    { { DEV("GetMaxClockInfo"), NULL, NULL }, SYM(max_clock), false },
    { { DEV("GetMaxPcieLinkGeneration"), NULL, NULL }, SYM(pcie_max_gen), false },
    { { DEV("GetGpuMaxPcieLinkGeneration"), NULL, NULL }, SYM(pcie_gpu_max_gen), false },
    { { DEV("GetMaxPcieLinkWidth"), NULL, NULL }, SYM(pcie_max_width), false },
    { { DEV("GetNumFans"), NULL, NULL }, SYM(num_fans), false },
    { { DEV("GetSupportedClocksEventReasons"), DEV("GetSupportedClocksThrottleReasons"), NULL },
      SYM(supported_reasons), false },
    /* per tick */
    { { DEV("GetMemoryInfo_v2"), NULL, NULL }, SYM(memory_v2), false },
    { { DEV("GetMemoryInfo"), NULL, NULL }, SYM(memory), false },
    { { DEV("GetBAR1MemoryInfo"), NULL, NULL }, SYM(bar1), false },
    { { DEV("GetUtilizationRates"), NULL, NULL }, SYM(utilization), false },
    { { DEV("GetEncoderUtilization"), NULL, NULL }, SYM(encoder_util), false },
    { { DEV("GetDecoderUtilization"), NULL, NULL }, SYM(decoder_util), false },
    { { DEV("GetTemperatureV"), NULL, NULL }, SYM(temperature_v), false },
    { { DEV("GetTemperature"), NULL, NULL }, SYM(temperature), false },
    { { DEV("GetFieldValues"), NULL, NULL }, SYM(field_values), false },
    { { DEV("GetFanSpeed_v2"), NULL, NULL }, SYM(fan_speed_v2), false },
    { { DEV("GetFanSpeed"), NULL, NULL }, SYM(fan_speed), false },
    { { DEV("GetPowerUsage"), NULL, NULL }, SYM(power_usage), false },
    { { DEV("GetPowerManagementLimit"), NULL, NULL }, SYM(power_limit), false },
    { { DEV("GetEnforcedPowerLimit"), NULL, NULL }, SYM(power_enforced), false },
    { { DEV("GetTotalEnergyConsumption"), NULL, NULL }, SYM(energy), false },
    { { DEV("GetClockInfo"), NULL, NULL }, SYM(clock), false },
    { { DEV("GetPerformanceState"), NULL, NULL }, SYM(pstate), false },
    { { DEV("GetCurrentClocksEventReasons"), DEV("GetCurrentClocksThrottleReasons"), NULL },
      SYM(current_reasons), false },
    { { DEV("GetCurrPcieLinkGeneration"), NULL, NULL }, SYM(pcie_gen), false },
    { { DEV("GetCurrPcieLinkWidth"), NULL, NULL }, SYM(pcie_width), false },
    { { DEV("GetPcieThroughput"), NULL, NULL }, SYM(pcie_throughput), false },
    { { DEV("GetPcieReplayCounter"), NULL, NULL }, SYM(pcie_replay), false },
    { { DEV("GetEccMode"), NULL, NULL }, SYM(ecc_mode), false },
    { { DEV("GetTotalEccErrors"), NULL, NULL }, SYM(ecc_errors), false },
    { { DEV("GetRetiredPages"), NULL, NULL }, SYM(retired_pages), false },
    { { DEV("GetRetiredPagesPendingStatus"), NULL, NULL }, SYM(retired_pending), false },
    { { DEV("GetRemappedRows"), NULL, NULL }, SYM(remapped_rows), false },
    { { DEV("GetPersistenceMode"), NULL, NULL }, SYM(persistence), false },
    { { DEV("GetComputeMode"), NULL, NULL }, SYM(compute_mode), false },
    { { DEV("GetMigMode"), NULL, NULL }, SYM(mig_mode), false },
    { { DEV("GetDisplayActive"), NULL, NULL }, SYM(display_active), false },
    { { DEV("GetDisplayMode"), NULL, NULL }, SYM(display_mode), false },
    /* processes: _v3 (24 or 32 bytes, see nvml_plist_stride) -> _v2 (24) -> plain (16) */
    { { DEV("GetComputeRunningProcesses_v3"), DEV("GetComputeRunningProcesses_v2"),
        DEV("GetComputeRunningProcesses") }, SYM(compute_procs), false },
    { { DEV("GetGraphicsRunningProcesses_v3"), DEV("GetGraphicsRunningProcesses_v2"),
        DEV("GetGraphicsRunningProcesses") }, SYM(graphics_procs), false },
    { { DEV("GetMPSComputeRunningProcesses_v3"), DEV("GetMPSComputeRunningProcesses_v2"),
        DEV("GetMPSComputeRunningProcesses") }, SYM(mps_procs), false },
    { { DEV("GetProcessesUtilizationInfo"), NULL, NULL }, SYM(proc_util_info), false },
    { { DEV("GetProcessUtilization"), NULL, NULL }, SYM(proc_util), false },
    { { "nvmlSystemGetProcessName", NULL, NULL }, SYM(process_name), false },
    { { "nvmlEventSetCreate", NULL, NULL }, SYM(event_set_create), false },
    { { DEV("GetSupportedEventTypes"), NULL, NULL }, SYM(supported_event_types), false },
    { { DEV("RegisterEvents"), NULL, NULL }, SYM(register_events), false },
    /* the plain symbol fills only the first 24 bytes of nvmlEventData_t: all we read */
    { { "nvmlEventSetWait_v2", "nvmlEventSetWait", NULL }, SYM(event_set_wait), false },
    { { "nvmlEventSetFree", NULL, NULL }, SYM(event_set_free), false },
    { { DEV("GetConfComputeMemSizeInfo"), NULL, NULL }, SYM(conf_compute_mem), false },
    { { DEV("GetRunningProcessDetailList"), NULL, NULL }, SYM(process_detail_list), false },
    /* throttle time, NVLink and fan range (health counters) */
    { { DEV("GetViolationStatus"), NULL, NULL }, SYM(violation_status), false },
    { { DEV("GetNvLinkState"), NULL, NULL }, SYM(nvlink_state), false },
    { { DEV("GetNvLinkErrorCounter"), NULL, NULL }, SYM(nvlink_errors), false },
    { { DEV("GetMinMaxFanSpeed"), NULL, NULL }, SYM(fan_minmax), false },
    /* query fidelity (9a): more of what nvidia-smi prints */
    { { DEV("GetJpgUtilization"), NULL, NULL }, SYM(jpg_util), false },
    { { DEV("GetOfaUtilization"), NULL, NULL }, SYM(ofa_util), false },
    { { DEV("GetEncoderStats"), NULL, NULL }, SYM(encoder_stats), false },
    { { DEV("GetMarginTemperature"), NULL, NULL }, SYM(margin_temp), false },
    { { DEV("GetMemoryErrorCounter"), NULL, NULL }, SYM(ecc_counter), false },
    { { DEV("GetSramEccErrorStatus"), NULL, NULL }, SYM(sram_ecc), false },
    { { DEV("GetRowRemapperHistogram"), NULL, NULL }, SYM(remap_histogram), false },
    { { DEV("GetAccountingMode"), NULL, NULL }, SYM(accounting_mode), false },
    { { DEV("GetAccountingBufferSize"), NULL, NULL }, SYM(accounting_buffer), false },
    { { DEV("GetConfComputeProtectedMemoryUsage"), NULL, NULL }, SYM(prot_mem), false },
    { { DEV("GetApplicationsClock"), NULL, NULL }, SYM(app_clock), false },
    { { DEV("GetDefaultApplicationsClock"), NULL, NULL }, SYM(def_app_clock), false },
    { { DEV("GetPowerManagementMode"), NULL, NULL }, SYM(power_mgmt_mode), false },
    { { DEV("GetPciInfoExt"), NULL, NULL }, SYM(pci_info_ext), false },
    { { DEV("GetInforomImageVersion"), NULL, NULL }, SYM(inforom_image), false },
    { { DEV("GetInforomVersion"), NULL, NULL }, SYM(inforom_version), false },
    { { DEV("ValidateInforom"), NULL, NULL }, SYM(validate_inforom), false },
    { { DEV("GetGspFirmwareMode"), NULL, NULL }, SYM(gsp_mode), false },
    { { DEV("GetAddressingMode"), NULL, NULL }, SYM(addressing_mode), false },
    { { DEV("GetBoardPartNumber"), NULL, NULL }, SYM(board_part), false },
    { { DEV("GetVirtualizationMode"), NULL, NULL }, SYM(virt_mode), false },
    { { DEV("GetGpuFabricInfoV"), NULL, NULL }, SYM(fabric_info), false },
    { { DEV("GetPlatformInfo"), NULL, NULL }, SYM(platform_info), false },
    { { DEV("GetC2cModeInfoV"), NULL, NULL }, SYM(c2c_mode), false },
    { { DEV("GetPdi"), NULL, NULL }, SYM(pdi), false },
    /* MIG devices and GPM profiling metrics (area 10c) */
    { { DEV("GetMaxMigDeviceCount"), NULL, NULL }, SYM(mig_max_count), false },
    { { DEV("GetMigDeviceHandleByIndex"), NULL, NULL }, SYM(mig_handle), false },
    { { DEV("GetGpuInstanceId"), NULL, NULL }, SYM(mig_gi_id), false },
    { { DEV("GetComputeInstanceId"), NULL, NULL }, SYM(mig_ci_id), false },
    { { DEV("GetAttributes_v2"), DEV("GetAttributes"), NULL }, SYM(attributes), false },
    { { "nvmlGpmQueryDeviceSupport", NULL, NULL }, SYM(gpm_support), false },
    { { "nvmlGpmSampleAlloc", NULL, NULL }, SYM(gpm_alloc), false },
    { { "nvmlGpmSampleFree", NULL, NULL }, SYM(gpm_free), false },
    { { "nvmlGpmSampleGet", NULL, NULL }, SYM(gpm_sample), false },
    { { "nvmlGpmMigSampleGet", NULL, NULL }, SYM(gpm_mig_sample), false },
    { { "nvmlGpmMetricsGet", NULL, NULL }, SYM(gpm_metrics), false },
    /* lost GPUs: handles again by identity (rediscovery) */
    { { DEV("GetHandleByUUID"), NULL, NULL }, SYM(handle_by_uuid), false },
    { { DEV("GetHandleByPciBusId_v2"), DEV("GetHandleByPciBusId"), NULL }, SYM(handle_by_pci), false },
    /* our simulator identifies itself with these */
    { { "gssimVersion", NULL, NULL }, SYM(sim_version), false },
    { { "gssimScenarioName", NULL, NULL }, SYM(sim_scenario), false },
};

#define NSYMS (sizeof(nvml_syms) / sizeof(nvml_syms[0]))
_Static_assert(NSYMS <= NVML_SYM_MAX, "raise NVML_SYM_MAX");

/* Index of the name that was bound for the row whose slot is at offset, or -1. */
static int nvml_bound_variant(const struct nvml_lib *lib, size_t offset)
{
    for (size_t i = 0; i < NSYMS; i++) {
        if (nvml_syms[i].offset != offset || !lib->bound[i])
            continue;
        for (int v = 0; v < 3; v++)
            if (nvml_syms[i].names[v] == lib->bound[i])
                return v;
    }
    return -1;
}

/*
 * Entry size of a running-process list. The R535 trap (nvml.md 5.2): drivers
 * 535.43-535.8x wrote 32-byte records through the unchanged _v3 name. Those
 * libraries are recognisable by nvmlDeviceGetConfComputeMemSizeInfo being
 * exported while nvmlDeviceGetRunningProcessDetailList (where the 32-byte
 * record later moved) is not.
 */
static unsigned nvml_plist_stride(const struct nvml_lib *lib, size_t offset)
{
    switch (nvml_bound_variant(lib, offset)) {
    case 0:
        if (lib->f.conf_compute_mem && !lib->f.process_detail_list)
            return sizeof(nvmlProcessDetail_v1_t);
        return sizeof(nvmlProcessInfo_v2_t);
    case 1:
        return sizeof(nvmlProcessInfo_v2_t);
    case 2:
        return sizeof(nvmlProcessInfo_v1_t);
    default:
        return 0;
    }
}

/* Bind every row; returns the first missing required row, or NULL. */
static const struct nvml_sym *nvml_bind_all(struct nvml_lib *lib)
{
    const struct nvml_sym *missing = NULL;

    for (size_t i = 0; i < NSYMS; i++) {
        const struct nvml_sym *s = &nvml_syms[i];
        void *p = NULL;
        for (int v = 0; v < 3 && s->names[v] && !p; v++) {
            p = dlsym(lib->handle, s->names[v]);
            if (p)
                lib->bound[i] = s->names[v];
        }
        /* POSIX guarantees data and function pointers convert; copy the bits. */
        memcpy((char *)&lib->f + s->offset, &p, sizeof(p));
        if (!p && s->required && !missing)
            missing = s;
    }
    lib->proc_stride[NVML_PL_COMPUTE] = nvml_plist_stride(lib, SYM(compute_procs));
    lib->proc_stride[NVML_PL_GRAPHICS] = nvml_plist_stride(lib, SYM(graphics_procs));
    lib->proc_stride[NVML_PL_MPS] = nvml_plist_stride(lib, SYM(mps_procs));
    return missing;
}

/* dlopen the candidates in order; keeps the dlerror() texts for the explanation. */
static int nvml_dlopen(struct nvml_lib *lib, const char *path, struct gs_err *err)
{
    const char *env = getenv("GPUSCOPE_NVML_LIB");
    const char *cands[2] = { "libnvidia-ml.so.1", "libnvidia-ml.so" };
    char why[256] = "";
    size_t n = 2;

    if ((path && *path) || (env && *env)) {
        cands[0] = (path && *path) ? path : env;
        n = 1;
    }
    for (size_t i = 0; i < n; i++) {
        lib->handle = dlopen(cands[i], RTLD_NOW | RTLD_LOCAL);
        if (lib->handle) {
            snprintf(lib->path, sizeof(lib->path), "%s", cands[i]);
            return 0;
        }
        const char *e = dlerror();
        if (i == 0)
            snprintf(why, sizeof(why), "%s", e ? e : "unknown dlopen error");
    }
    return gs_nvml_explain_no_library(n == 1 ? cands[0] : NULL, why, err);
}

int gs_nvml_lib_open(struct nvml_lib *lib, const char *path, struct gs_err *err)
{
    memset(lib, 0, sizeof(*lib));
    int rc = nvml_dlopen(lib, path, err);
    if (rc < 0)
        return rc;
    const struct nvml_sym *missing = nvml_bind_all(lib);
    if (missing) {
        gs_err_set(err, GS_E_NO_LIBRARY, "%s is not a usable NVML library: it lacks %s",
                   lib->path, missing->names[0]);
        gs_err_hint(err, "point GPUSCOPE_NVML_LIB at NVIDIA's libnvidia-ml.so.1 (or unset it), "
                         "or try 'gpuscope --demo'");
        gs_nvml_lib_close(lib);
        return -GS_E_NO_LIBRARY;
    }
    return 0;
}

void gs_nvml_lib_close(struct nvml_lib *lib)
{
    if (lib->handle)
        dlclose(lib->handle);
    lib->handle = NULL;
}

void gs_nvml_lib_describe(const struct nvml_lib *lib, void (*line)(void *arg, const char *text),
                          void *arg)
{
    char buf[300];

    snprintf(buf, sizeof(buf), "library -> %s", lib->path);
    line(arg, buf);
    for (size_t i = 0; i < NSYMS; i++) {
        const struct nvml_sym *s = &nvml_syms[i];
        const char *base = s->names[0];
        for (int v = 1; v < 3 && s->names[v]; v++)
            base = s->names[v]; /* the oldest name labels the row */
        snprintf(buf, sizeof(buf), "%s -> %s", base, lib->bound[i] ? lib->bound[i] : "(absent)");
        line(arg, buf);
    }
    for (int k = 0; k < NVML_PL_COUNT; k++) {
        static const char *const what[] = { "compute", "graphics", "MPS" };
        snprintf(buf, sizeof(buf), "%s process entry -> %u bytes", what[k], lib->proc_stride[k]);
        line(arg, buf);
    }
}
