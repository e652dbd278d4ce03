/* SPDX-License-Identifier: MIT */
/*
 * nvml_abi.h - our own declaration of the part of NVML's binary interface that
 * gpuscope uses. It is shared by the NVML backend (which dlopen()s the real
 * library) and by the simulator in sim/ (which *is* a libnvidia-ml.so.1), so
 * that the two cannot drift apart.
 *
 * Written from the facts in shared/reference/nvml.md, not from nvml.h: we never
 * need NVIDIA's SDK at build time. Layouts assume LP64 Linux; every struct whose
 * layout matters carries a _Static_assert on its size (and key offsets), so a
 * mistake here fails the build instead of reading garbage at run time.
 *
 * Naming: NVML's own names are kept for the ABI types (nvmlDevice_t, ...) and
 * for the function-pointer typedefs (nvml<Function>_fn), so the code can be
 * read side by side with NVIDIA's documentation.
 */
#ifndef GS_NVML_ABI_H
#define GS_NVML_ABI_H

#include <stddef.h>

/* ---- return codes (nvmlReturn_t, a 4-byte enum) ---------------------------- */
typedef enum nvmlReturn_enum {
    NVML_SUCCESS = 0,
    NVML_ERROR_UNINITIALIZED = 1,
    NVML_ERROR_INVALID_ARGUMENT = 2,
    NVML_ERROR_NOT_SUPPORTED = 3,
    NVML_ERROR_NO_PERMISSION = 4,
    NVML_ERROR_ALREADY_INITIALIZED = 5,
    NVML_ERROR_NOT_FOUND = 6,
    NVML_ERROR_INSUFFICIENT_SIZE = 7,
    NVML_ERROR_INSUFFICIENT_POWER = 8,
    NVML_ERROR_DRIVER_NOT_LOADED = 9,
    NVML_ERROR_TIMEOUT = 10,
    NVML_ERROR_IRQ_ISSUE = 11,
    NVML_ERROR_LIBRARY_NOT_FOUND = 12,
    NVML_ERROR_FUNCTION_NOT_FOUND = 13,
    NVML_ERROR_CORRUPTED_INFOROM = 14,
    NVML_ERROR_GPU_IS_LOST = 15,
    NVML_ERROR_RESET_REQUIRED = 16,
    NVML_ERROR_OPERATING_SYSTEM = 17,
    NVML_ERROR_LIB_RM_VERSION_MISMATCH = 18,
    NVML_ERROR_IN_USE = 19,
    NVML_ERROR_MEMORY = 20,
    NVML_ERROR_NO_DATA = 21,
    NVML_ERROR_VGPU_ECC_NOT_SUPPORTED = 22,
    NVML_ERROR_INSUFFICIENT_RESOURCES = 23,
    NVML_ERROR_FREQ_NOT_SUPPORTED = 24,
    NVML_ERROR_ARGUMENT_VERSION_MISMATCH = 25,
    NVML_ERROR_DEPRECATED = 26,
    NVML_ERROR_NOT_READY = 27,
    NVML_ERROR_GPU_NOT_FOUND = 28,
    NVML_ERROR_INVALID_STATE = 29,
    NVML_ERROR_RESET_TYPE_NOT_SUPPORTED = 30,
    NVML_ERROR_UNKNOWN = 999
} nvmlReturn_t;
_Static_assert(sizeof(nvmlReturn_t) == 4, "nvmlReturn_t is a 4-byte enum");

/* ---- opaque handles (8-byte pointers) --------------------------------------- */
typedef struct nvmlDevice_st *nvmlDevice_t;
typedef struct nvmlEventSet_st *nvmlEventSet_t;

/* ---- init flags ------------------------------------------------------------- */
#define NVML_INIT_FLAG_NO_GPUS 0x1u
#define NVML_INIT_FLAG_NO_ATTACH 0x2u

/* ---- versioned-struct helper: sizeof | (N << 24) ---------------------------- */
#define NVML_STRUCT_VERSION(type, n) ((unsigned int)(sizeof(type) | ((n) << 24u)))

/* ---- sentinel values --------------------------------------------------------- */
#define NVML_VALUE_NOT_AVAILABLE_ULL 0xFFFFFFFFFFFFFFFFull
#define NVML_VALUE_NOT_AVAILABLE_UINT 0xFFFFFFFFu
#define NVML_INSTANCE_ID_NONE 0xFFFFFFFFu

/* ---- string buffer sizes (including the NUL) --------------------------------- */
#define NVML_DEVICE_NAME_BUFFER_SIZE 64
#define NVML_DEVICE_NAME_V2_BUFFER_SIZE 96
#define NVML_DEVICE_UUID_BUFFER_SIZE 80
#define NVML_DEVICE_UUID_V2_BUFFER_SIZE 96
#define NVML_DEVICE_SERIAL_BUFFER_SIZE 30
#define NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE 80
#define NVML_SYSTEM_NVML_VERSION_BUFFER_SIZE 80
#define NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE 32
#define NVML_DEVICE_PCI_BUS_ID_BUFFER_V2_SIZE 16
#define NVML_DEVICE_VBIOS_VERSION_BUFFER_SIZE 32
#define NVML_DEVICE_INFOROM_VERSION_BUFFER_SIZE 16
#define NVML_DEVICE_PART_NUMBER_BUFFER_SIZE 80

/* ---- enums (all 4-byte ints, passed by value) --------------------------------- */
typedef enum { NVML_FEATURE_DISABLED = 0, NVML_FEATURE_ENABLED = 1 } nvmlEnableState_t;

typedef enum {
    NVML_CLOCK_GRAPHICS = 0,
    NVML_CLOCK_SM = 1,
    NVML_CLOCK_MEM = 2,
    NVML_CLOCK_VIDEO = 3,
    NVML_CLOCK_COUNT
} nvmlClockType_t;

typedef enum { NVML_TEMPERATURE_GPU = 0, NVML_TEMPERATURE_COUNT } nvmlTemperatureSensors_t;

typedef enum {
    NVML_TEMPERATURE_THRESHOLD_SHUTDOWN = 0,
    NVML_TEMPERATURE_THRESHOLD_SLOWDOWN = 1,
    NVML_TEMPERATURE_THRESHOLD_MEM_MAX = 2,
    NVML_TEMPERATURE_THRESHOLD_GPU_MAX = 3,
    NVML_TEMPERATURE_THRESHOLD_ACOUSTIC_MIN = 4,
    NVML_TEMPERATURE_THRESHOLD_ACOUSTIC_CURR = 5,
    NVML_TEMPERATURE_THRESHOLD_ACOUSTIC_MAX = 6,
    NVML_TEMPERATURE_THRESHOLD_COUNT
} nvmlTemperatureThresholds_t;

typedef enum { NVML_PCIE_UTIL_TX_BYTES = 0, NVML_PCIE_UTIL_RX_BYTES = 1 } nvmlPcieUtilCounter_t;

typedef enum { NVML_MEMORY_ERROR_TYPE_CORRECTED = 0, NVML_MEMORY_ERROR_TYPE_UNCORRECTED = 1 } nvmlMemoryErrorType_t;
typedef enum { NVML_VOLATILE_ECC = 0, NVML_AGGREGATE_ECC = 1 } nvmlEccCounterType_t;
typedef enum {
    NVML_PAGE_RETIREMENT_CAUSE_MULTIPLE_SINGLE_BIT_ECC_ERRORS = 0,
    NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR = 1
} nvmlPageRetirementCause_t;

typedef enum {
    NVML_COMPUTEMODE_DEFAULT = 0,
    NVML_COMPUTEMODE_EXCLUSIVE_THREAD = 1,
    NVML_COMPUTEMODE_PROHIBITED = 2,
    NVML_COMPUTEMODE_EXCLUSIVE_PROCESS = 3
} nvmlComputeMode_t;

typedef enum { NVML_PSTATE_0 = 0, NVML_PSTATE_15 = 15, NVML_PSTATE_UNKNOWN = 32 } nvmlPstates_t;

typedef unsigned int nvmlBrandType_t;           /* 0 UNKNOWN .. 17; see nvml.md 3.1 */
typedef unsigned int nvmlDeviceArchitecture_t;  /* 2 Kepler .. 10 Blackwell; 0xFFFFFFFF unknown */
#define NVML_DEVICE_ARCH_UNKNOWN 0xFFFFFFFFu

#define NVML_DEVICE_MIG_DISABLE 0u
#define NVML_DEVICE_MIG_ENABLE 1u

/* Clock event (throttle) reason bits; the same bits under both API names. */
#define NVML_CLOCKS_EVENT_REASON_GPU_IDLE 0x1ull
#define NVML_CLOCKS_EVENT_REASON_APP_CLOCKS 0x2ull
#define NVML_CLOCKS_EVENT_REASON_SW_POWER_CAP 0x4ull
#define NVML_CLOCKS_EVENT_REASON_HW_SLOWDOWN 0x8ull
#define NVML_CLOCKS_EVENT_REASON_SYNC_BOOST 0x10ull
#define NVML_CLOCKS_EVENT_REASON_SW_THERMAL 0x20ull
#define NVML_CLOCKS_EVENT_REASON_HW_THERMAL 0x40ull
#define NVML_CLOCKS_EVENT_REASON_HW_POWER_BRAKE 0x80ull
#define NVML_CLOCKS_EVENT_REASON_DISPLAY_CLOCK 0x100ull
#define NVML_CLOCKS_EVENT_REASON_ALL 0x1FFull

/* Event type bits (nvmlEventSetWait). */
#define NVML_EVENT_TYPE_SINGLE_BIT_ECC 0x1ull
#define NVML_EVENT_TYPE_DOUBLE_BIT_ECC 0x2ull
#define NVML_EVENT_TYPE_PSTATE 0x4ull
#define NVML_EVENT_TYPE_XID_CRITICAL 0x8ull
#define NVML_EVENT_TYPE_CLOCK 0x10ull

/* ---- structs ------------------------------------------------------------------ */

/* nvmlPciInfo_t: one 68-byte layout behind PciInfo, _v2 and _v3. */
typedef struct {
    char busIdLegacy[NVML_DEVICE_PCI_BUS_ID_BUFFER_V2_SIZE]; /* "%04X:%02X:%02X.0" */
    unsigned int domain;
    unsigned int bus;
    unsigned int device;
    unsigned int pciDeviceId;    /* (device id << 16) | vendor id */
    unsigned int pciSubSystemId;
    char busId[NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE]; /* "%08X:%02X:%02X.0" */
} nvmlPciInfo_t;
_Static_assert(sizeof(nvmlPciInfo_t) == 68, "nvmlPciInfo_t is 68 bytes");
_Static_assert(offsetof(nvmlPciInfo_t, busId) == 36, "busId at 36");

/* v1 memory info: bytes; used = reserved + allocated since R510. */
typedef struct {
    unsigned long long total;
    unsigned long long free;
    unsigned long long used;
} nvmlMemory_t;
_Static_assert(sizeof(nvmlMemory_t) == 24, "nvmlMemory_t is 24 bytes");

/* v2 memory info: caller sets version = nvmlMemory_v2 (0x02000028, not 2). */
typedef struct {
    unsigned int version;
    unsigned long long total;
    unsigned long long reserved;
    unsigned long long free;
    unsigned long long used;
} nvmlMemory_v2_t;
_Static_assert(sizeof(nvmlMemory_v2_t) == 40, "nvmlMemory_v2_t is 40 bytes");
_Static_assert(offsetof(nvmlMemory_v2_t, total) == 8, "total at 8");
#define nvmlMemory_v2 NVML_STRUCT_VERSION(nvmlMemory_v2_t, 2)
_Static_assert(nvmlMemory_v2 == 0x02000028u, "nvmlMemory_v2 is 0x02000028");

typedef struct {
    unsigned long long bar1Total;
    unsigned long long bar1Free;
    unsigned long long bar1Used;
} nvmlBAR1Memory_t;
_Static_assert(sizeof(nvmlBAR1Memory_t) == 24, "nvmlBAR1Memory_t is 24 bytes");

typedef struct {
    unsigned int gpu;    /* percent */
    unsigned int memory; /* percent */
} nvmlUtilization_t;
_Static_assert(sizeof(nvmlUtilization_t) == 8, "nvmlUtilization_t is 8 bytes");

/* Running processes: 16-byte v1 entries (plain symbol), 24-byte v2 (_v2, _v3),
 * and the 32-byte record that drivers 535.43-535.8x wrote through _v3. */
typedef struct {
    unsigned int pid;
    unsigned long long usedGpuMemory; /* bytes, or NVML_VALUE_NOT_AVAILABLE_ULL */
} nvmlProcessInfo_v1_t;
_Static_assert(sizeof(nvmlProcessInfo_v1_t) == 16, "v1 process entry is 16 bytes");

typedef struct {
    unsigned int pid;
    unsigned long long usedGpuMemory;
    unsigned int gpuInstanceId;     /* NVML_INSTANCE_ID_NONE without MIG */
    unsigned int computeInstanceId;
} nvmlProcessInfo_v2_t;
_Static_assert(sizeof(nvmlProcessInfo_v2_t) == 24, "v2 process entry is 24 bytes");
typedef nvmlProcessInfo_v2_t nvmlProcessInfo_t;

typedef struct {
    unsigned int pid;
    unsigned long long usedGpuMemory;
    unsigned int gpuInstanceId;
    unsigned int computeInstanceId;
    unsigned long long usedGpuCcProtectedMemory;
} nvmlProcessDetail_v1_t;
_Static_assert(sizeof(nvmlProcessDetail_v1_t) == 32, "R535-early/detail entry is 32 bytes");

typedef struct {
    unsigned int version;             /* nvmlProcessDetailList_v1 */
    unsigned int mode;                /* 0 compute, 1 graphics, 2 MPS */
    unsigned int numProcArrayEntries; /* in: capacity, out: written/required */
    nvmlProcessDetail_v1_t *procArray;
} nvmlProcessDetailList_v1_t;
_Static_assert(sizeof(nvmlProcessDetailList_v1_t) == 24, "detail list is 24 bytes");
#define nvmlProcessDetailList_v1 NVML_STRUCT_VERSION(nvmlProcessDetailList_v1_t, 1)

/* Per-process utilization sample (nvmlDeviceGetProcessUtilization). */
typedef struct {
    unsigned int pid;
    unsigned long long timeStamp; /* CPU wall clock, microseconds since the epoch */
    unsigned int smUtil;
    unsigned int memUtil;
    unsigned int encUtil;
    unsigned int decUtil;
} nvmlProcessUtilizationSample_t;
_Static_assert(sizeof(nvmlProcessUtilizationSample_t) == 32, "process util sample is 32 bytes");
_Static_assert(offsetof(nvmlProcessUtilizationSample_t, smUtil) == 16, "smUtil at 16");

/* Per-process utilization, versioned (R550+). */
typedef struct {
    unsigned long long timeStamp;
    unsigned int pid;
    unsigned int smUtil;
    unsigned int memUtil;
    unsigned int encUtil;
    unsigned int decUtil;
    unsigned int jpgUtil;
    unsigned int ofaUtil;
} nvmlProcessUtilizationInfo_v1_t;
_Static_assert(sizeof(nvmlProcessUtilizationInfo_v1_t) == 40, "process util info is 40 bytes");

typedef struct {
    unsigned int version;             /* nvmlProcessesUtilizationInfo_v1 */
    unsigned int processSamplesCount; /* in: capacity, out: written/required */
    unsigned long long lastSeenTimeStamp;
    nvmlProcessUtilizationInfo_v1_t *procUtilArray;
} nvmlProcessesUtilizationInfo_v1_t;
_Static_assert(sizeof(nvmlProcessesUtilizationInfo_v1_t) == 24, "util info list is 24 bytes");
#define nvmlProcessesUtilizationInfo_v1 NVML_STRUCT_VERSION(nvmlProcessesUtilizationInfo_v1_t, 1)
_Static_assert(nvmlProcessesUtilizationInfo_v1 == 0x01000018u, "version constant");

/* Temperature, versioned (R565+). */
typedef struct {
    unsigned int version;        /* nvmlTemperature_v1 */
    nvmlTemperatureSensors_t sensorType;
    int temperature;             /* degrees C, signed */
} nvmlTemperature_v1_t;
_Static_assert(sizeof(nvmlTemperature_v1_t) == 12, "nvmlTemperature_v1_t is 12 bytes");
#define nvmlTemperature_v1 NVML_STRUCT_VERSION(nvmlTemperature_v1_t, 1)

/* Samples API. */
typedef enum {
    NVML_TOTAL_POWER_SAMPLES = 0,
    NVML_GPU_UTILIZATION_SAMPLES = 1,
    NVML_MEMORY_UTILIZATION_SAMPLES = 2,
    NVML_ENC_UTILIZATION_SAMPLES = 3,
    NVML_DEC_UTILIZATION_SAMPLES = 4,
    NVML_PROCESSOR_CLK_SAMPLES = 5,
    NVML_MEMORY_CLK_SAMPLES = 6,
    NVML_SAMPLINGTYPE_COUNT = 10
} nvmlSamplingType_t;

typedef enum {
    NVML_VALUE_TYPE_DOUBLE = 0,
    NVML_VALUE_TYPE_UNSIGNED_INT = 1,
    NVML_VALUE_TYPE_UNSIGNED_LONG = 2,
    NVML_VALUE_TYPE_UNSIGNED_LONG_LONG = 3,
    NVML_VALUE_TYPE_SIGNED_LONG_LONG = 4,
    NVML_VALUE_TYPE_SIGNED_INT = 5,
    NVML_VALUE_TYPE_COUNT
} nvmlValueType_t;

typedef union {
    double dVal;
    int siVal;
    unsigned int uiVal;
    unsigned long ulVal;
    unsigned long long ullVal;
    signed long long sllVal;
    unsigned short usVal;
} nvmlValue_t;
_Static_assert(sizeof(nvmlValue_t) == 8, "nvmlValue_t is 8 bytes");

typedef struct {
    unsigned long long timeStamp; /* microseconds, CPU clock */
    nvmlValue_t sampleValue;
} nvmlSample_t;
_Static_assert(sizeof(nvmlSample_t) == 16, "nvmlSample_t is 16 bytes");

/* Field values. */
typedef struct {
    unsigned int fieldId;
    unsigned int scopeId;
    long long timestamp;   /* microseconds since 1970 */
    long long latencyUsec;
    nvmlValueType_t valueType;
    nvmlReturn_t nvmlReturn;
    nvmlValue_t value;
} nvmlFieldValue_t;
_Static_assert(sizeof(nvmlFieldValue_t) == 40, "nvmlFieldValue_t is 40 bytes");
_Static_assert(offsetof(nvmlFieldValue_t, value) == 32, "value at 32");

#define NVML_FI_DEV_MEMORY_TEMP 82
#define NVML_FI_DEV_TOTAL_ENERGY_CONSUMPTION 83
#define NVML_FI_DEV_PCIE_REPLAY_COUNTER 94
#define NVML_FI_DEV_PCIE_COUNT_TX_BYTES 197
#define NVML_FI_DEV_PCIE_COUNT_RX_BYTES 198

/* Events. */
typedef struct {
    nvmlDevice_t device;
    unsigned long long eventType;
    unsigned long long eventData; /* Xid number for Xid events */
    unsigned int gpuInstanceId;
    unsigned int computeInstanceId;
} nvmlEventData_t;
_Static_assert(sizeof(nvmlEventData_t) == 32, "nvmlEventData_t is 32 bytes");

typedef struct {
    unsigned int max, high, partial, low, none;
} nvmlRowRemapperHistogramValues_t;
_Static_assert(sizeof(nvmlRowRemapperHistogramValues_t) == 20, "histogram is 20 bytes");

/* ---- function-pointer typedefs, one per exported symbol family -------------- */
/* Versioned twins (e.g. _v2 and plain) share a typedef when their signature is
 * the same; the backend records which name it bound (see nvml_load.c). */
typedef nvmlReturn_t (*nvmlInit_fn)(void);
typedef nvmlReturn_t (*nvmlInitWithFlags_fn)(unsigned int flags);
typedef nvmlReturn_t (*nvmlShutdown_fn)(void);
typedef const char *(*nvmlErrorString_fn)(nvmlReturn_t result);
typedef nvmlReturn_t (*nvmlSystemGetString_fn)(char *buf, unsigned int length);
typedef nvmlReturn_t (*nvmlSystemGetCudaDriverVersion_fn)(int *version);
typedef nvmlReturn_t (*nvmlSystemGetProcessName_fn)(unsigned int pid, char *name, unsigned int length);
typedef nvmlReturn_t (*nvmlDeviceGetCount_fn)(unsigned int *count);
typedef nvmlReturn_t (*nvmlDeviceGetHandleByIndex_fn)(unsigned int index, nvmlDevice_t *device);
typedef nvmlReturn_t (*nvmlDeviceGetHandleByString_fn)(const char *key, nvmlDevice_t *device);
typedef nvmlReturn_t (*nvmlDeviceGetString_fn)(nvmlDevice_t device, char *buf, unsigned int length);
typedef nvmlReturn_t (*nvmlDeviceGetUInt_fn)(nvmlDevice_t device, unsigned int *value);
typedef nvmlReturn_t (*nvmlDeviceGetULL_fn)(nvmlDevice_t device, unsigned long long *value);
typedef nvmlReturn_t (*nvmlDeviceGetInt2_fn)(nvmlDevice_t device, int *major, int *minor);
typedef nvmlReturn_t (*nvmlDeviceGetUInt2_fn)(nvmlDevice_t device, unsigned int *a, unsigned int *b);
typedef nvmlReturn_t (*nvmlDeviceGetEnable_fn)(nvmlDevice_t device, nvmlEnableState_t *state);
typedef nvmlReturn_t (*nvmlDeviceGetEnable2_fn)(nvmlDevice_t device, nvmlEnableState_t *current,
                                                nvmlEnableState_t *pending);
typedef nvmlReturn_t (*nvmlDeviceGetPciInfo_fn)(nvmlDevice_t device, nvmlPciInfo_t *pci);
typedef nvmlReturn_t (*nvmlDeviceGetMemoryInfo_fn)(nvmlDevice_t device, nvmlMemory_t *mem);
typedef nvmlReturn_t (*nvmlDeviceGetMemoryInfo_v2_fn)(nvmlDevice_t device, nvmlMemory_v2_t *mem);
typedef nvmlReturn_t (*nvmlDeviceGetBAR1MemoryInfo_fn)(nvmlDevice_t device, nvmlBAR1Memory_t *bar1);
typedef nvmlReturn_t (*nvmlDeviceGetUtilizationRates_fn)(nvmlDevice_t device, nvmlUtilization_t *util);
typedef nvmlReturn_t (*nvmlDeviceGetCodecUtilization_fn)(nvmlDevice_t device, unsigned int *util,
                                                         unsigned int *samplingPeriodUs);
typedef nvmlReturn_t (*nvmlDeviceGetTemperature_fn)(nvmlDevice_t device, nvmlTemperatureSensors_t sensor,
                                                    unsigned int *temp);
typedef nvmlReturn_t (*nvmlDeviceGetTemperatureV_fn)(nvmlDevice_t device, nvmlTemperature_v1_t *temp);
typedef nvmlReturn_t (*nvmlDeviceGetTemperatureThreshold_fn)(nvmlDevice_t device,
                                                             nvmlTemperatureThresholds_t type,
                                                             unsigned int *temp);
typedef nvmlReturn_t (*nvmlDeviceGetFanSpeed_v2_fn)(nvmlDevice_t device, unsigned int fan,
                                                    unsigned int *speed);
typedef nvmlReturn_t (*nvmlDeviceGetClockInfo_fn)(nvmlDevice_t device, nvmlClockType_t type,
                                                  unsigned int *mhz);
typedef nvmlReturn_t (*nvmlDeviceGetPerformanceState_fn)(nvmlDevice_t device, nvmlPstates_t *pstate);
typedef nvmlReturn_t (*nvmlDeviceGetPcieThroughput_fn)(nvmlDevice_t device, nvmlPcieUtilCounter_t counter,
                                                       unsigned int *kbps);
typedef nvmlReturn_t (*nvmlDeviceGetComputeMode_fn)(nvmlDevice_t device, nvmlComputeMode_t *mode);
typedef nvmlReturn_t (*nvmlDeviceGetTotalEccErrors_fn)(nvmlDevice_t device, nvmlMemoryErrorType_t type,
                                                       nvmlEccCounterType_t counter,
                                                       unsigned long long *count);
typedef nvmlReturn_t (*nvmlDeviceGetRetiredPages_fn)(nvmlDevice_t device, nvmlPageRetirementCause_t cause,
                                                     unsigned int *pageCount,
                                                     unsigned long long *addresses);
typedef nvmlReturn_t (*nvmlDeviceGetRemappedRows_fn)(nvmlDevice_t device, unsigned int *corrRows,
                                                     unsigned int *uncRows, unsigned int *isPending,
                                                     unsigned int *failureOccurred);
typedef nvmlReturn_t (*nvmlDeviceGetRunningProcesses_fn)(nvmlDevice_t device, unsigned int *infoCount,
                                                         void *infos /* 16/24/32-byte entries */);
typedef nvmlReturn_t (*nvmlDeviceGetRunningProcessDetailList_fn)(nvmlDevice_t device,
                                                                 nvmlProcessDetailList_v1_t *list);
typedef nvmlReturn_t (*nvmlDeviceGetProcessUtilization_fn)(nvmlDevice_t device,
                                                           nvmlProcessUtilizationSample_t *utilization,
                                                           unsigned int *processSamplesCount,
                                                           unsigned long long lastSeenTimeStamp);
typedef nvmlReturn_t (*nvmlDeviceGetProcessesUtilizationInfo_fn)(nvmlDevice_t device,
                                                                 nvmlProcessesUtilizationInfo_v1_t *info);
typedef nvmlReturn_t (*nvmlDeviceGetFieldValues_fn)(nvmlDevice_t device, int valuesCount,
                                                    nvmlFieldValue_t *values);
typedef nvmlReturn_t (*nvmlDeviceGetSamples_fn)(nvmlDevice_t device, nvmlSamplingType_t type,
                                                unsigned long long lastSeenTimeStamp,
                                                nvmlValueType_t *sampleValType,
                                                unsigned int *sampleCount, nvmlSample_t *samples);
typedef nvmlReturn_t (*nvmlEventSetCreate_fn)(nvmlEventSet_t *set);
typedef nvmlReturn_t (*nvmlDeviceRegisterEvents_fn)(nvmlDevice_t device, unsigned long long eventTypes,
                                                    nvmlEventSet_t set);
typedef nvmlReturn_t (*nvmlEventSetWait_fn)(nvmlEventSet_t set, nvmlEventData_t *data,
                                            unsigned int timeoutms);
typedef nvmlReturn_t (*nvmlEventSetFree_fn)(nvmlEventSet_t set);

/* ---- additions for the simulator's exports (sim/); additive ------------------ */
typedef enum {
    NVML_CLOCK_ID_CURRENT = 0,
    NVML_CLOCK_ID_APP_CLOCK_TARGET = 1,
    NVML_CLOCK_ID_APP_CLOCK_DEFAULT = 2,
    NVML_CLOCK_ID_CUSTOMER_BOOST_MAX = 3,
    NVML_CLOCK_ID_COUNT
} nvmlClockId_t;

typedef enum {
    NVML_MEMORY_LOCATION_L1_CACHE = 0,
    NVML_MEMORY_LOCATION_L2_CACHE = 1,
    NVML_MEMORY_LOCATION_DEVICE_MEMORY = 2, /* also "DRAM" */
    NVML_MEMORY_LOCATION_REGISTER_FILE = 3,
    NVML_MEMORY_LOCATION_TEXTURE_MEMORY = 4,
    NVML_MEMORY_LOCATION_TEXTURE_SHM = 5,
    NVML_MEMORY_LOCATION_CBU = 6,
    NVML_MEMORY_LOCATION_SRAM = 7,
    NVML_MEMORY_LOCATION_COUNT
} nvmlMemoryLocation_t;

typedef enum {
    NVML_GPU_VIRTUALIZATION_MODE_NONE = 0,
    NVML_GPU_VIRTUALIZATION_MODE_PASSTHROUGH = 1,
    NVML_GPU_VIRTUALIZATION_MODE_VGPU = 2,
    NVML_GPU_VIRTUALIZATION_MODE_HOST_VGPU = 3,
    NVML_GPU_VIRTUALIZATION_MODE_HOST_VSGA = 4
} nvmlGpuVirtualizationMode_t;

typedef enum { NVML_DRIVER_WDDM = 0, NVML_DRIVER_WDM = 1, NVML_DRIVER_MCDM = 2 } nvmlDriverModel_t;

/* nvmlDeviceGetPciInfoExt (R550+): 64 bytes, version 0x01000040. */
typedef struct {
    unsigned int version;
    unsigned int domain;
    unsigned int bus;
    unsigned int device;
    unsigned int pciDeviceId;
    unsigned int pciSubSystemId;
    unsigned int baseClass;
    unsigned int subClass;
    char busId[NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE];
} nvmlPciInfoExt_v1_t;
_Static_assert(sizeof(nvmlPciInfoExt_v1_t) == 64, "nvmlPciInfoExt_v1_t is 64 bytes");
#define nvmlPciInfoExt_v1 NVML_STRUCT_VERSION(nvmlPciInfoExt_v1_t, 1)

/* nvmlSystemGetDriverBranch (12.6 header): 84 bytes, version 0x01000054. */
typedef struct {
    unsigned int version;
    char branch[NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE];
} nvmlSystemDriverBranchInfo_v1_t;
_Static_assert(sizeof(nvmlSystemDriverBranchInfo_v1_t) == 84, "driver branch info is 84 bytes");
#define nvmlSystemDriverBranchInfo_v1 NVML_STRUCT_VERSION(nvmlSystemDriverBranchInfo_v1_t, 1)

/* nvmlDeviceGetConfComputeMemSizeInfo (R535+). */
typedef struct {
    unsigned long long protectedMemSizeKib;
    unsigned long long unprotectedMemSizeKib;
} nvmlConfComputeMemSizeInfo_t;
_Static_assert(sizeof(nvmlConfComputeMemSizeInfo_t) == 16, "conf compute mem size is 16 bytes");

#define nvmlTemperature_v1_VALUE 0x0100000Cu
_Static_assert(nvmlTemperature_v1 == nvmlTemperature_v1_VALUE, "nvmlTemperature_v1 is 0x0100000C");
_Static_assert(nvmlProcessDetailList_v1 == 0x01000018u, "nvmlProcessDetailList_v1 is 0x01000018");

#endif /* GS_NVML_ABI_H */
