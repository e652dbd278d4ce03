/* SPDX-License-Identifier: MIT */
/*
 * nvml_load.h - dlopen() of libnvidia-ml and the one table of NVML symbols we
 * bind (newest variant first, decided by dlsym only). No NVML call is made
 * here apart from what the simulator probe needs; init lives in nvml_backend.c.
 */
#ifndef GS_NVML_LOAD_H
#define GS_NVML_LOAD_H

#include <stdbool.h>

#include "backend/nvidia/nvml_abi.h"
#include "core/err.h"

typedef void (*nvmlProbe_fn)(void);           /* bound only to learn it exists */
typedef const char *(*gssimString_fn)(void);  /* gssimVersion, gssimScenarioName */

/* Every function we may call; NULL when the library lacks all its names. */
struct nvml_fns {
    /* lifecycle and system */
    nvmlInit_fn init;
    nvmlShutdown_fn shutdown;
    nvmlErrorString_fn error_string;
    nvmlSystemGetString_fn driver_version;
    nvmlSystemGetString_fn nvml_version;
    nvmlSystemGetCudaDriverVersion_fn cuda_version;
    nvmlDeviceGetCount_fn count;
    nvmlDeviceGetHandleByIndex_fn handle_by_index;
    /* static facts */
    nvmlDeviceGetString_fn name;
    nvmlDeviceGetString_fn uuid;
    nvmlDeviceGetString_fn serial;
    nvmlDeviceGetPciInfo_fn pci_info;
    nvmlDeviceGetUInt_fn board_id;
    nvmlDeviceGetString_fn vbios;
    nvmlDeviceGetUInt_fn arch;
    nvmlDeviceGetInt2_fn cuda_cc;
    nvmlDeviceGetUInt_fn brand;
    nvmlDeviceGetUInt_fn minor_number;
    nvmlDeviceGetTemperatureThreshold_fn temp_threshold;
    nvmlDeviceGetUInt_fn power_default_limit;
    nvmlDeviceGetUInt2_fn power_constraints;
    nvmlDeviceGetClockInfo_fn max_clock;
    nvmlDeviceGetUInt_fn pcie_max_gen;
    nvmlDeviceGetUInt_fn pcie_gpu_max_gen;
    nvmlDeviceGetUInt_fn pcie_max_width;
    nvmlDeviceGetUInt_fn num_fans;
    nvmlDeviceGetULL_fn supported_reasons;
    /* per tick */
    nvmlDeviceGetMemoryInfo_v2_fn memory_v2;
    nvmlDeviceGetMemoryInfo_fn memory;
    nvmlDeviceGetBAR1MemoryInfo_fn bar1;
    nvmlDeviceGetUtilizationRates_fn utilization;
    nvmlDeviceGetCodecUtilization_fn encoder_util;
    nvmlDeviceGetCodecUtilization_fn decoder_util;
    nvmlDeviceGetTemperatureV_fn temperature_v;
    nvmlDeviceGetTemperature_fn temperature;
    nvmlDeviceGetFieldValues_fn field_values;
    nvmlDeviceGetFanSpeed_v2_fn fan_speed_v2;
    nvmlDeviceGetUInt_fn fan_speed;
    nvmlDeviceGetUInt_fn power_usage;
    nvmlDeviceGetUInt_fn power_limit;
    nvmlDeviceGetUInt_fn power_enforced;
    nvmlDeviceGetULL_fn energy;
    nvmlDeviceGetClockInfo_fn clock;
    nvmlDeviceGetPerformanceState_fn pstate;
    nvmlDeviceGetULL_fn current_reasons;
    nvmlDeviceGetUInt_fn pcie_gen;
    nvmlDeviceGetUInt_fn pcie_width;
    nvmlDeviceGetPcieThroughput_fn pcie_throughput;
    nvmlDeviceGetUInt_fn pcie_replay;
    nvmlDeviceGetEnable2_fn ecc_mode;
    nvmlDeviceGetTotalEccErrors_fn ecc_errors;
    nvmlDeviceGetRetiredPages_fn retired_pages;
    nvmlDeviceGetEnable_fn retired_pending;
    nvmlDeviceGetRemappedRows_fn remapped_rows;
    nvmlDeviceGetEnable_fn persistence;
    nvmlDeviceGetComputeMode_fn compute_mode;
    nvmlDeviceGetUInt2_fn mig_mode;
    nvmlDeviceGetEnable_fn display_active;
    nvmlDeviceGetEnable_fn display_mode;
    /* processes */
    nvmlDeviceGetRunningProcesses_fn compute_procs;
    nvmlDeviceGetRunningProcesses_fn graphics_procs;
    nvmlDeviceGetRunningProcesses_fn mps_procs;
    nvmlDeviceGetProcessesUtilizationInfo_fn proc_util_info;
    nvmlDeviceGetProcessUtilization_fn proc_util;
    nvmlSystemGetProcessName_fn process_name;
    /* events (Xid, ECC) */
    nvmlEventSetCreate_fn event_set_create;
    nvmlDeviceGetULL_fn supported_event_types;
    nvmlDeviceRegisterEvents_fn register_events;
    nvmlEventSetWait_fn event_set_wait;
    nvmlEventSetFree_fn event_set_free;
    nvmlProbe_fn conf_compute_mem;       /* presence marks the R535-early _v3 layout ... */
    nvmlProbe_fn process_detail_list;    /* ... unless this one exists too */
    /* throttle time, NVLink and fan range (health counters) */
    nvmlDeviceGetViolationStatus_fn violation_status;
    nvmlDeviceGetNvLinkState_fn nvlink_state;
    nvmlDeviceGetNvLinkErrorCounter_fn nvlink_errors;
    nvmlDeviceGetUInt2_fn fan_minmax;
    /* query fidelity (9a): more of what nvidia-smi prints */
    nvmlDeviceGetCodecUtilization_fn jpg_util;
    nvmlDeviceGetCodecUtilization_fn ofa_util;
    nvmlDeviceGetEncoderStats_fn encoder_stats;
    nvmlDeviceGetMarginTemperature_fn margin_temp;
    nvmlDeviceGetMemoryErrorCounter_fn ecc_counter;
    nvmlDeviceGetSramEccErrorStatus_fn sram_ecc;
    nvmlDeviceGetRowRemapperHistogram_fn remap_histogram;
    nvmlDeviceGetEnable_fn accounting_mode;
    nvmlDeviceGetUInt_fn accounting_buffer;
    nvmlDeviceGetConfComputeProtectedMemoryUsage_fn prot_mem;
    nvmlDeviceGetClockById_fn app_clock;
    nvmlDeviceGetClockById_fn def_app_clock;
    nvmlDeviceGetEnable_fn power_mgmt_mode;
    nvmlDeviceGetPciInfoExt_fn pci_info_ext;
    nvmlDeviceGetString_fn inforom_image;
    nvmlDeviceGetInforomVersion_fn inforom_version;
    nvmlDeviceValidateInforom_fn validate_inforom;
    nvmlDeviceGetUInt2_fn gsp_mode;
    nvmlDeviceGetAddressingMode_fn addressing_mode;
    nvmlDeviceGetString_fn board_part;
    nvmlDeviceGetVirtualizationMode_fn virt_mode;
    nvmlDeviceGetGpuFabricInfoV_fn fabric_info;
    nvmlDeviceGetPlatformInfo_fn platform_info;
    nvmlDeviceGetC2cModeInfoV_fn c2c_mode;
    nvmlDeviceGetPdi_fn pdi;
    /* MIG devices and GPM profiling metrics (area 10c) */
    nvmlDeviceGetUInt_fn mig_max_count;
    nvmlDeviceGetMigDeviceHandleByIndex_fn mig_handle;
    nvmlDeviceGetUInt_fn mig_gi_id;
    nvmlDeviceGetUInt_fn mig_ci_id;
    nvmlDeviceGetAttributes_fn attributes;
    nvmlGpmQueryDeviceSupport_fn gpm_support;
    nvmlGpmSampleAlloc_fn gpm_alloc;
    nvmlGpmSampleFree_fn gpm_free;
    nvmlGpmSampleGet_fn gpm_sample;
    nvmlGpmMigSampleGet_fn gpm_mig_sample;
    nvmlGpmMetricsGet_fn gpm_metrics;
    /* lost GPUs: handles again by identity (rediscovery) */
    nvmlDeviceGetHandleByString_fn handle_by_uuid;
    nvmlDeviceGetHandleByString_fn handle_by_pci;
    /* the gpuscope simulator */
    gssimString_fn sim_version;
    gssimString_fn sim_scenario;
};

/* Process-list flavours, in the order of struct nvml_lib.proc_stride. */
enum nvml_plist { NVML_PL_COMPUTE, NVML_PL_GRAPHICS, NVML_PL_MPS, NVML_PL_COUNT };

#define NVML_SYM_MAX 160

struct nvml_lib {
    void *handle;                      /* dlopen() handle */
    char path[256];                    /* name or path that loaded */
    struct nvml_fns f;
    const char *bound[NVML_SYM_MAX];   /* per table row: the name bound, NULL if none */
    unsigned proc_stride[NVML_PL_COUNT]; /* bytes per running-process entry (16/24/32), 0 if absent */
};

/* Load: path if non-NULL, else $GPUSCOPE_NVML_LIB, else libnvidia-ml.so.1 then
 * libnvidia-ml.so. Binds every symbol; a missing required one fails with
 * GS_E_NO_LIBRARY. Does not call nvmlInit. */
int gs_nvml_lib_open(struct nvml_lib *lib, const char *path, struct gs_err *err);
void gs_nvml_lib_close(struct nvml_lib *lib);
/* One line per table row: "nvmlDeviceGetPciInfo -> nvmlDeviceGetPciInfo_v3". */
void gs_nvml_lib_describe(const struct nvml_lib *lib, void (*line)(void *arg, const char *text),
                          void *arg);

#endif /* GS_NVML_LOAD_H */
