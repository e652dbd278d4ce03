/* SPDX-License-Identifier: MIT */
/*
 * sim_syms.h - the one list of NVML functions the simulator implements, with the
 * driver profiles that export each (an X-macro: SIM_SYM(name, profiles)).
 *
 * Used three ways: the runtime turns it into call counters and fault targets,
 * the scenario parser uses it to reject unknown function names in fault lines,
 * and sim/profiles/genmaps.sh turns it into the linker version scripts
 * sim/profiles/<profile>.map (rerun it after editing this list).
 */
#ifndef GS_SIM_SYMS_H
#define GS_SIM_SYMS_H

/* Profile bits (one build per profile, see sim/profiles/). */
#define SIM_P_CURRENT 0x01u   /* R550+: everything */
#define SIM_P_R535 0x02u      /* 535.104+: no TemperatureV/ProcessesUtilizationInfo/PciInfoExt */
#define SIM_P_R535EARLY 0x04u /* 535.43-535.8x: 32-byte _v3 entries, no RunningProcessDetailList */
#define SIM_P_R525 0x08u      /* no RunningProcessDetailList, no ClocksEventReasons names */
#define SIM_P_R470 0x10u      /* no _v3 process lists, no MemoryInfo_v2, no NumFans */

#define SIM_P_ALL 0x1Fu
#define SIM_P_N470 (SIM_P_ALL & ~SIM_P_R470)
#define SIM_P_535UP (SIM_P_CURRENT | SIM_P_R535 | SIM_P_R535EARLY)
#define SIM_P_DETAIL (SIM_P_CURRENT | SIM_P_R535)

#define SIM_SYMBOLS(X)                                                  \
    X(nvmlInit, SIM_P_ALL)                                              \
    X(nvmlInit_v2, SIM_P_ALL)                                           \
    X(nvmlInitWithFlags, SIM_P_ALL)                                     \
    X(nvmlShutdown, SIM_P_ALL)                                          \
    X(nvmlErrorString, SIM_P_ALL)                                       \
    X(nvmlSystemGetDriverVersion, SIM_P_ALL)                            \
    X(nvmlSystemGetNVMLVersion, SIM_P_ALL)                              \
    X(nvmlSystemGetCudaDriverVersion, SIM_P_ALL)                        \
    X(nvmlSystemGetCudaDriverVersion_v2, SIM_P_ALL)                     \
    X(nvmlSystemGetProcessName, SIM_P_ALL)                              \
    X(nvmlSystemGetDriverBranch, SIM_P_CURRENT)                         \
    X(nvmlDeviceGetCount, SIM_P_ALL)                                    \
    X(nvmlDeviceGetCount_v2, SIM_P_ALL)                                 \
    X(nvmlDeviceGetHandleByIndex, SIM_P_ALL)                            \
    X(nvmlDeviceGetHandleByIndex_v2, SIM_P_ALL)                         \
    X(nvmlDeviceGetHandleByUUID, SIM_P_ALL)                             \
    X(nvmlDeviceGetHandleBySerial, SIM_P_ALL)                           \
    X(nvmlDeviceGetHandleByPciBusId, SIM_P_ALL)                         \
    X(nvmlDeviceGetHandleByPciBusId_v2, SIM_P_ALL)                      \
    X(nvmlDeviceGetIndex, SIM_P_ALL)                                    \
    X(nvmlDeviceGetName, SIM_P_ALL)                                     \
    X(nvmlDeviceGetUUID, SIM_P_ALL)                                     \
    X(nvmlDeviceGetSerial, SIM_P_ALL)                                   \
    X(nvmlDeviceGetBrand, SIM_P_ALL)                                    \
    X(nvmlDeviceGetArchitecture, SIM_P_ALL)                             \
    X(nvmlDeviceGetMinorNumber, SIM_P_ALL)                              \
    X(nvmlDeviceGetBoardId, SIM_P_ALL)                                  \
    X(nvmlDeviceGetBoardPartNumber, SIM_P_ALL)                          \
    X(nvmlDeviceGetVbiosVersion, SIM_P_ALL)                             \
    X(nvmlDeviceGetCudaComputeCapability, SIM_P_ALL)                    \
    X(nvmlDeviceGetPciInfo, SIM_P_ALL)                                  \
    X(nvmlDeviceGetPciInfo_v2, SIM_P_ALL)                               \
    X(nvmlDeviceGetPciInfo_v3, SIM_P_ALL)                               \
    X(nvmlDeviceGetPciInfoExt, SIM_P_CURRENT)                           \
    X(nvmlDeviceGetMemoryInfo, SIM_P_ALL)                               \
    X(nvmlDeviceGetMemoryInfo_v2, SIM_P_N470)                           \
    X(nvmlDeviceGetBAR1MemoryInfo, SIM_P_ALL)                           \
    X(nvmlDeviceGetUtilizationRates, SIM_P_ALL)                         \
    X(nvmlDeviceGetEncoderUtilization, SIM_P_ALL)                       \
    X(nvmlDeviceGetDecoderUtilization, SIM_P_ALL)                       \
    X(nvmlDeviceGetTemperature, SIM_P_ALL)                              \
    X(nvmlDeviceGetTemperatureV, SIM_P_CURRENT)                         \
    X(nvmlDeviceGetTemperatureThreshold, SIM_P_ALL)                     \
    X(nvmlDeviceGetFanSpeed, SIM_P_ALL)                                 \
    X(nvmlDeviceGetFanSpeed_v2, SIM_P_ALL)                              \
    X(nvmlDeviceGetNumFans, SIM_P_N470)                                 \
    X(nvmlDeviceGetPowerUsage, SIM_P_ALL)                               \
    X(nvmlDeviceGetPowerManagementLimit, SIM_P_ALL)                     \
    X(nvmlDeviceGetEnforcedPowerLimit, SIM_P_ALL)                       \
    X(nvmlDeviceGetPowerManagementLimitConstraints, SIM_P_ALL)          \
    X(nvmlDeviceGetPowerManagementDefaultLimit, SIM_P_ALL)              \
    X(nvmlDeviceGetPowerManagementMode, SIM_P_ALL)                      \
    X(nvmlDeviceGetTotalEnergyConsumption, SIM_P_ALL)                   \
    X(nvmlDeviceGetClockInfo, SIM_P_ALL)                                \
    X(nvmlDeviceGetMaxClockInfo, SIM_P_ALL)                             \
    X(nvmlDeviceGetClock, SIM_P_ALL)                                    \
    X(nvmlDeviceGetMaxCustomerBoostClock, SIM_P_ALL)                    \
    X(nvmlDeviceGetApplicationsClock, SIM_P_ALL)                        \
    X(nvmlDeviceGetDefaultApplicationsClock, SIM_P_ALL)                 \
    X(nvmlDeviceGetPerformanceState, SIM_P_ALL)                         \
    X(nvmlDeviceGetPowerState, SIM_P_ALL)                               \
    X(nvmlDeviceGetCurrentClocksThrottleReasons, SIM_P_ALL)             \
    X(nvmlDeviceGetSupportedClocksThrottleReasons, SIM_P_ALL)           \
    X(nvmlDeviceGetCurrentClocksEventReasons, SIM_P_535UP)              \
    X(nvmlDeviceGetSupportedClocksEventReasons, SIM_P_535UP)            \
    X(nvmlDeviceGetCurrPcieLinkGeneration, SIM_P_ALL)                   \
    X(nvmlDeviceGetMaxPcieLinkGeneration, SIM_P_ALL)                    \
    X(nvmlDeviceGetGpuMaxPcieLinkGeneration, SIM_P_N470)                \
    X(nvmlDeviceGetCurrPcieLinkWidth, SIM_P_ALL)                        \
    X(nvmlDeviceGetMaxPcieLinkWidth, SIM_P_ALL)                         \
    X(nvmlDeviceGetPcieThroughput, SIM_P_ALL)                           \
    X(nvmlDeviceGetPcieReplayCounter, SIM_P_ALL)                        \
    X(nvmlDeviceGetPcieSpeed, SIM_P_N470)                               \
    X(nvmlDeviceGetEccMode, SIM_P_ALL)                                  \
    X(nvmlDeviceGetTotalEccErrors, SIM_P_ALL)                           \
    X(nvmlDeviceGetMemoryErrorCounter, SIM_P_ALL)                       \
    X(nvmlDeviceGetRetiredPages, SIM_P_ALL)                             \
    X(nvmlDeviceGetRetiredPages_v2, SIM_P_ALL)                          \
    X(nvmlDeviceGetRetiredPagesPendingStatus, SIM_P_ALL)                \
    X(nvmlDeviceGetRemappedRows, SIM_P_ALL)                             \
    X(nvmlDeviceGetRowRemapperHistogram, SIM_P_ALL)                     \
    X(nvmlDeviceGetPersistenceMode, SIM_P_ALL)                          \
    X(nvmlDeviceGetComputeMode, SIM_P_ALL)                              \
    X(nvmlDeviceGetDisplayMode, SIM_P_ALL)                              \
    X(nvmlDeviceGetDisplayActive, SIM_P_ALL)                            \
    X(nvmlDeviceGetMigMode, SIM_P_ALL)                                  \
    X(nvmlDeviceGetVirtualizationMode, SIM_P_ALL)                       \
    X(nvmlDeviceGetDriverModel, SIM_P_ALL)                              \
    X(nvmlDeviceGetDriverModel_v2, SIM_P_CURRENT)                       \
    X(nvmlDeviceIsMigDeviceHandle, SIM_P_ALL)                           \
    X(nvmlDeviceGetMaxMigDeviceCount, SIM_P_ALL)                        \
    X(nvmlDeviceGetMigDeviceHandleByIndex, SIM_P_ALL)                   \
    X(nvmlDeviceGetDeviceHandleFromMigDeviceHandle, SIM_P_ALL)          \
    X(nvmlDeviceGetGpuInstanceId, SIM_P_ALL)                            \
    X(nvmlDeviceGetComputeInstanceId, SIM_P_ALL)                        \
    X(nvmlDeviceGetComputeRunningProcesses, SIM_P_ALL)                  \
    X(nvmlDeviceGetComputeRunningProcesses_v2, SIM_P_ALL)               \
    X(nvmlDeviceGetComputeRunningProcesses_v3, SIM_P_N470)              \
    X(nvmlDeviceGetGraphicsRunningProcesses, SIM_P_ALL)                 \
    X(nvmlDeviceGetGraphicsRunningProcesses_v2, SIM_P_ALL)              \
    X(nvmlDeviceGetGraphicsRunningProcesses_v3, SIM_P_N470)             \
    X(nvmlDeviceGetMPSComputeRunningProcesses, SIM_P_ALL)               \
    X(nvmlDeviceGetMPSComputeRunningProcesses_v2, SIM_P_ALL)            \
    X(nvmlDeviceGetMPSComputeRunningProcesses_v3, SIM_P_N470)           \
    X(nvmlDeviceGetRunningProcessDetailList, SIM_P_DETAIL)              \
    X(nvmlDeviceGetConfComputeMemSizeInfo, SIM_P_535UP)                 \
    X(nvmlDeviceGetProcessUtilization, SIM_P_ALL)                       \
    X(nvmlDeviceGetProcessesUtilizationInfo, SIM_P_CURRENT)             \
    X(nvmlDeviceGetSamples, SIM_P_ALL)                                  \
    X(nvmlDeviceGetFieldValues, SIM_P_ALL)                              \
    X(nvmlDeviceGetSupportedEventTypes, SIM_P_ALL)                      \
    X(nvmlDeviceRegisterEvents, SIM_P_ALL)                              \
    X(nvmlEventSetCreate, SIM_P_ALL)                                    \
    X(nvmlEventSetWait, SIM_P_ALL)                                      \
    X(nvmlEventSetWait_v2, SIM_P_ALL)                                   \
    X(nvmlEventSetFree, SIM_P_ALL)                                      \
    /* throttle time, NVLink and fan range (health counters, sim_counters.c) */ \
    X(nvmlDeviceGetViolationStatus, SIM_P_ALL)                          \
    X(nvmlDeviceGetNvLinkState, SIM_P_ALL)                              \
    X(nvmlDeviceGetNvLinkErrorCounter, SIM_P_ALL)                       \
    X(nvmlDeviceGetMinMaxFanSpeed, SIM_P_N470)                          \
    /* query fidelity (9a) */                                           \
    X(nvmlDeviceGetJpgUtilization, SIM_P_535UP)                         \
    X(nvmlDeviceGetOfaUtilization, SIM_P_535UP)                         \
    X(nvmlDeviceGetEncoderStats, SIM_P_ALL)                             \
    X(nvmlDeviceGetMarginTemperature, SIM_P_CURRENT)                    \
    X(nvmlDeviceGetSramEccErrorStatus, SIM_P_CURRENT)                     \
    X(nvmlDeviceGetAccountingMode, SIM_P_ALL)                           \
    X(nvmlDeviceGetAccountingBufferSize, SIM_P_ALL)                     \
    X(nvmlDeviceGetConfComputeProtectedMemoryUsage, SIM_P_535UP)        \
    X(nvmlDeviceGetInforomImageVersion, SIM_P_ALL)                      \
    X(nvmlDeviceGetInforomVersion, SIM_P_ALL)                           \
    X(nvmlDeviceValidateInforom, SIM_P_ALL)                             \
    X(nvmlDeviceGetGspFirmwareMode, SIM_P_N470)                         \
    X(nvmlDeviceGetAddressingMode, SIM_P_CURRENT)                       \
    X(nvmlDeviceGetGpuFabricInfoV, SIM_P_CURRENT)                       \
    X(nvmlDeviceGetPlatformInfo, SIM_P_CURRENT)                         \
    X(nvmlDeviceGetC2cModeInfoV, SIM_P_CURRENT)                         \
    X(nvmlDeviceGetPdi, SIM_P_CURRENT)                                  \
    /* -- MIG instances and GPM profiling metrics (area 10c) -- */      \
    X(nvmlDeviceGetAttributes, SIM_P_ALL)                               \
    X(nvmlDeviceGetAttributes_v2, SIM_P_ALL)                            \
    X(nvmlDeviceGetGpuInstanceProfileInfo, SIM_P_ALL)                   \
    X(nvmlDeviceGetGpuInstanceProfileInfoV, SIM_P_N470)                 \
    X(nvmlDeviceGetGpuInstances, SIM_P_ALL)                             \
    X(nvmlDeviceGetGpuInstanceById, SIM_P_ALL)                          \
    X(nvmlGpuInstanceGetInfo, SIM_P_ALL)                                \
    X(nvmlGpuInstanceGetComputeInstanceProfileInfo, SIM_P_ALL)          \
    X(nvmlGpuInstanceGetComputeInstanceProfileInfoV, SIM_P_N470)        \
    X(nvmlGpuInstanceGetComputeInstances, SIM_P_ALL)                    \
    X(nvmlGpuInstanceGetComputeInstanceById, SIM_P_ALL)                 \
    X(nvmlComputeInstanceGetInfo, SIM_P_ALL)                            \
    X(nvmlComputeInstanceGetInfo_v2, SIM_P_ALL)                         \
    X(nvmlGpmQueryDeviceSupport, SIM_P_N470)                            \
    X(nvmlGpmSampleAlloc, SIM_P_N470)                                   \
    X(nvmlGpmSampleFree, SIM_P_N470)                                    \
    X(nvmlGpmSampleGet, SIM_P_N470)                                     \
    X(nvmlGpmMigSampleGet, SIM_P_N470)                                  \
    X(nvmlGpmMetricsGet, SIM_P_N470)

/* Control symbols exported by every profile (not NVML; not counted). */
#define SIM_GSSIM_SYMBOLS(X) \
    X(gssimVersion)          \
    X(gssimScenarioName)     \
    X(gssimClockSet)         \
    X(gssimClockStep)        \
    X(gssimCallCount)        \
    X(gssimXidCount)         \
    X(gssimReset)            \
    /* burn (15): the CUDA simulator's clock and load */ \
    X(gssimClockNow)         \
    X(gssimLoadBusy)

#define SIM_SYM_ENUM(name, prof) SIM_SYM_##name,
enum sim_sym { SIM_SYMBOLS(SIM_SYM_ENUM) SIM_SYM__COUNT };
#undef SIM_SYM_ENUM

#endif /* GS_SIM_SYMS_H */
