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

/* ---- throttle time, NVLink and fan range (health counters, stream 12) ------- */
/* nvmlDeviceGetViolationStatus: how long a limiter held clocks down. The 13.0
 * header deprecates it for field values 74-79 (same counters) and 269-271
 * (SW thermal, HW thermal, HW power brake; first in the 12.9 header). */
typedef enum {
    NVML_PERF_POLICY_POWER = 0,
    NVML_PERF_POLICY_THERMAL = 1,
    NVML_PERF_POLICY_SYNC_BOOST = 2,
    NVML_PERF_POLICY_BOARD_LIMIT = 3,
    NVML_PERF_POLICY_LOW_UTILIZATION = 4,
    NVML_PERF_POLICY_RELIABILITY = 5,
    NVML_PERF_POLICY_TOTAL_APP_CLOCKS = 10,
    NVML_PERF_POLICY_TOTAL_BASE_CLOCKS = 11,
    NVML_PERF_POLICY_COUNT
} nvmlPerfPolicyType_t;

typedef struct {
    unsigned long long referenceTime; /* CPU timestamp, microseconds */
    unsigned long long violationTime; /* nanoseconds */
} nvmlViolationTime_t;
_Static_assert(sizeof(nvmlViolationTime_t) == 16, "nvmlViolationTime_t is 16 bytes");

#define NVML_FI_DEV_PERF_POLICY_POWER 74
#define NVML_FI_DEV_PERF_POLICY_THERMAL 75
#define NVML_FI_DEV_PERF_POLICY_SYNC_BOOST 76
#define NVML_FI_DEV_PERF_POLICY_BOARD_LIMIT 77
#define NVML_FI_DEV_PERF_POLICY_LOW_UTILIZATION 78
#define NVML_FI_DEV_PERF_POLICY_RELIABILITY 79
#define NVML_FI_DEV_NVLINK_LINK_COUNT 91
#define NVML_FI_DEV_NVLINK_GET_STATE 165 /* scopeId = link; an nvmlEnableState_t (CUDA 11.8+ headers) */
#define NVML_FI_DEV_CLOCKS_EVENT_REASON_SW_THERM_SLOWDOWN 269
#define NVML_FI_DEV_CLOCKS_EVENT_REASON_HW_THERM_SLOWDOWN 270
#define NVML_FI_DEV_CLOCKS_EVENT_REASON_HW_POWER_BRAKE_SLOWDOWN 271

typedef enum {
    NVML_NVLINK_ERROR_DL_REPLAY = 0,
    NVML_NVLINK_ERROR_DL_RECOVERY = 1,
    NVML_NVLINK_ERROR_DL_CRC_FLIT = 2,
    NVML_NVLINK_ERROR_DL_CRC_DATA = 3,
    NVML_NVLINK_ERROR_DL_ECC_DATA = 4,
    NVML_NVLINK_ERROR_COUNT
} nvmlNvLinkErrorCounter_t;
#define NVML_NVLINK_MAX_LINKS 36 /* 12 in 11.x headers, 18 in 12.x, 36 in 13.3: iterate to the link count */

typedef nvmlReturn_t (*nvmlDeviceGetViolationStatus_fn)(nvmlDevice_t device, nvmlPerfPolicyType_t policy,
                                                        nvmlViolationTime_t *viol);
typedef nvmlReturn_t (*nvmlDeviceGetNvLinkState_fn)(nvmlDevice_t device, unsigned int link,
                                                    nvmlEnableState_t *isActive);
typedef nvmlReturn_t (*nvmlDeviceGetNvLinkErrorCounter_fn)(nvmlDevice_t device, unsigned int link,
                                                           nvmlNvLinkErrorCounter_t counter,
                                                           unsigned long long *value);
/* nvmlDeviceGetMinMaxFanSpeed(dev, unsigned *min, unsigned *max): nvmlDeviceGetUInt2_fn (11.6+) */
/* ---- query fidelity (9a): the readings nvidia-smi's fields and -q need ------- */
#define NVML_FI_DEV_POWER_AVERAGE 185
#define NVML_FI_DEV_POWER_INSTANT 186
#define NVML_FI_DEV_POWER_CURRENT_LIMIT 190   /* the enforced limit (nvmlDeviceGetEnforcedPowerLimit) */
#define NVML_FI_DEV_POWER_REQUESTED_LIMIT 192 /* the limit set (nvmlDeviceGetPowerManagementLimit) */
#define NVML_FI_DEV_RESET_STATUS 226             /* R535-R570; DEPRECATED from R570 on */
#define NVML_FI_DEV_DRAIN_AND_RESET_STATUS 227
#define NVML_FI_DEV_GET_GPU_RECOVERY_ACTION 230
#define NVML_FI_DEV_EDPP_MULTIPLIER 274
#define NVML_FI_DEV_PCIE_REPLAY_ROLLOVER_COUNTER 95
#define NVML_FI_DEV_PCIE_OUTBOUND_ATOMICS_MASK 228 /* 13.x headers; NVML_PCIE_ATOMICS_CAP_* bits */
#define NVML_FI_DEV_PCIE_INBOUND_ATOMICS_MASK 229
#define NVML_POWER_SCOPE_GPU 0u                  /* nvmlFieldValue_t.scopeId of the power fields */
#define NVML_POWER_SCOPE_MEMORY 2u
#define NVML_PCIE_ATOMICS_CAP_FETCHADD32 0x01
#define NVML_PCIE_ATOMICS_CAP_FETCHADD64 0x02
#define NVML_PCIE_ATOMICS_CAP_SWAP32 0x04
#define NVML_PCIE_ATOMICS_CAP_SWAP64 0x08
#define NVML_PCIE_ATOMICS_CAP_CAS32 0x10
#define NVML_PCIE_ATOMICS_CAP_CAS64 0x20
#define NVML_PCIE_ATOMICS_CAP_CAS128 0x40

typedef enum {
    NVML_INFOROM_OEM = 0,
    NVML_INFOROM_ECC = 1,
    NVML_INFOROM_POWER = 2,
    NVML_INFOROM_DEN = 3,
    NVML_INFOROM_COUNT
} nvmlInforomObject_t;

/* nvmlDeviceGetMarginTemperature (R570+): distance to the slowdown limit. */
typedef struct {
    unsigned int version;
    int marginTemperature;
} nvmlMarginTemperature_v1_t;
_Static_assert(sizeof(nvmlMarginTemperature_v1_t) == 8, "margin temperature is 8 bytes");
#define nvmlMarginTemperature_v1 NVML_STRUCT_VERSION(nvmlMarginTemperature_v1_t, 1)

/* nvmlDeviceGetSramEccErrorStatus (R535+). */
typedef struct {
    unsigned int version;
    unsigned long long aggregateUncParity;
    unsigned long long aggregateUncSecDed;
    unsigned long long aggregateCor;
    unsigned long long volatileUncParity;
    unsigned long long volatileUncSecDed;
    unsigned long long volatileCor;
    unsigned long long aggregateUncBucketL2;
    unsigned long long aggregateUncBucketSm;
    unsigned long long aggregateUncBucketPcie;
    unsigned long long aggregateUncBucketMcu;
    unsigned long long aggregateUncBucketOther;
    unsigned int bThresholdExceeded;
} nvmlEccSramErrorStatus_v1_t;
_Static_assert(sizeof(nvmlEccSramErrorStatus_v1_t) == 104, "SRAM ECC status is 104 bytes");
_Static_assert(offsetof(nvmlEccSramErrorStatus_v1_t, bThresholdExceeded) == 96, "threshold at 96");
#define nvmlEccSramErrorStatus_v1 NVML_STRUCT_VERSION(nvmlEccSramErrorStatus_v1_t, 1)

/* nvmlDeviceGetAddressingMode (R580+): 0 none, 1 HMM, 2 ATS. */
typedef struct {
    unsigned int version;
    unsigned int value;
} nvmlDeviceAddressingMode_v1_t;
_Static_assert(sizeof(nvmlDeviceAddressingMode_v1_t) == 8, "addressing mode is 8 bytes");
#define nvmlDeviceAddressingMode_v1 NVML_STRUCT_VERSION(nvmlDeviceAddressingMode_v1_t, 1)

/* nvmlDeviceGetPdi (R580+): the per-device identifier nvidia-smi -q prints as GPU PDI. */
typedef struct {
    unsigned int version;
    unsigned long long value;
} nvmlPdi_v1_t;
_Static_assert(sizeof(nvmlPdi_v1_t) == 16, "PDI is 16 bytes");
#define nvmlPdi_v1 NVML_STRUCT_VERSION(nvmlPdi_v1_t, 1)
typedef nvmlReturn_t (*nvmlDeviceGetPdi_fn)(nvmlDevice_t device, nvmlPdi_v1_t *pdi);

typedef nvmlReturn_t (*nvmlDeviceGetEncoderStats_fn)(nvmlDevice_t device, unsigned int *sessionCount,
                                                     unsigned int *averageFps, unsigned int *averageLatency);
typedef nvmlReturn_t (*nvmlDeviceGetMarginTemperature_fn)(nvmlDevice_t device,
                                                          nvmlMarginTemperature_v1_t *margin);
typedef nvmlReturn_t (*nvmlDeviceGetMemoryErrorCounter_fn)(nvmlDevice_t device, nvmlMemoryErrorType_t type,
                                                           nvmlEccCounterType_t counter,
                                                           nvmlMemoryLocation_t location,
                                                           unsigned long long *count);
typedef nvmlReturn_t (*nvmlDeviceGetSramEccErrorStatus_fn)(nvmlDevice_t device,
                                                           nvmlEccSramErrorStatus_v1_t *status);
typedef nvmlReturn_t (*nvmlDeviceGetRowRemapperHistogram_fn)(nvmlDevice_t device,
                                                             nvmlRowRemapperHistogramValues_t *values);
typedef nvmlReturn_t (*nvmlDeviceGetConfComputeProtectedMemoryUsage_fn)(nvmlDevice_t device,
                                                                        nvmlMemory_t *memory);
typedef nvmlReturn_t (*nvmlDeviceGetClockById_fn)(nvmlDevice_t device, nvmlClockType_t type,
                                                  unsigned int *mhz); /* Applications/DefaultApplications */
typedef nvmlReturn_t (*nvmlDeviceGetPciInfoExt_fn)(nvmlDevice_t device, nvmlPciInfoExt_v1_t *pci);
typedef nvmlReturn_t (*nvmlDeviceGetInforomVersion_fn)(nvmlDevice_t device, nvmlInforomObject_t object,
                                                       char *version, unsigned int length);
typedef nvmlReturn_t (*nvmlDeviceValidateInforom_fn)(nvmlDevice_t device);
typedef nvmlReturn_t (*nvmlDeviceGetAddressingMode_fn)(nvmlDevice_t device,
                                                       nvmlDeviceAddressingMode_v1_t *mode);
typedef nvmlReturn_t (*nvmlDeviceGetVirtualizationMode_fn)(nvmlDevice_t device,
                                                           nvmlGpuVirtualizationMode_t *mode);
/* nvmlDeviceGetGpuFabricInfoV (v3, R550+). */
typedef struct {
    unsigned int version;
    unsigned char clusterUuid[16];
    nvmlReturn_t status;
    unsigned int cliqueId;
    unsigned int state;           /* NVML_GPU_FABRIC_STATE_* */
    unsigned int healthMask;
    unsigned char healthSummary;
} nvmlGpuFabricInfo_v3_t;
_Static_assert(sizeof(nvmlGpuFabricInfo_v3_t) == 40, "fabric info v3 is 40 bytes");
#define nvmlGpuFabricInfo_v3 NVML_STRUCT_VERSION(nvmlGpuFabricInfo_v3_t, 3)
#define NVML_GPU_FABRIC_STATE_NOT_SUPPORTED 0
#define NVML_GPU_FABRIC_STATE_NOT_STARTED 1
#define NVML_GPU_FABRIC_STATE_IN_PROGRESS 2
#define NVML_GPU_FABRIC_STATE_COMPLETED 3

/* nvmlDeviceGetPlatformInfo (v2, R570+). */
typedef struct {
    unsigned int version;
    unsigned char ibGuid[16];
    unsigned char chassisSerialNumber[16];
    unsigned char slotNumber;
    unsigned char trayIndex;
    unsigned char hostId;
    unsigned char peerType;
    unsigned char moduleId;
} nvmlPlatformInfo_v2_t;
_Static_assert(sizeof(nvmlPlatformInfo_v2_t) == 44, "platform info v2 is 44 bytes");
#define nvmlPlatformInfo_v2 NVML_STRUCT_VERSION(nvmlPlatformInfo_v2_t, 2)

/* nvmlDeviceGetC2cModeInfoV (R550+): no version member. */
typedef struct {
    unsigned int isC2cEnabled;
} nvmlC2cModeInfo_v1_t;

typedef nvmlReturn_t (*nvmlDeviceGetGpuFabricInfoV_fn)(nvmlDevice_t device, nvmlGpuFabricInfo_v3_t *info);
typedef nvmlReturn_t (*nvmlDeviceGetPlatformInfo_fn)(nvmlDevice_t device, nvmlPlatformInfo_v2_t *info);
typedef nvmlReturn_t (*nvmlDeviceGetC2cModeInfoV_fn)(nvmlDevice_t device, nvmlC2cModeInfo_v1_t *info);

_Static_assert(nvmlMarginTemperature_v1 == 0x01000008u, "nvmlMarginTemperature_v1 is 0x01000008");
_Static_assert(nvmlEccSramErrorStatus_v1 == 0x01000068u, "nvmlEccSramErrorStatus_v1 is 0x01000068");
/* ---- MIG (GPU and compute instances) and GPM (profiling metrics): area 10c ---- */
/* Written from NVIDIA's nvml.h as mirrored in NVIDIA/go-nvml (gen/nvml/nvml.h). */
typedef struct nvmlGpuInstance_st *nvmlGpuInstance_t;
typedef struct nvmlComputeInstance_st *nvmlComputeInstance_t;
typedef struct nvmlGpmSample_st *nvmlGpmSample_t;

/* GPU instance profile indexes (the `profile` argument of ...GpuInstanceProfileInfo). */
#define NVML_GPU_INSTANCE_PROFILE_1_SLICE 0x0u
#define NVML_GPU_INSTANCE_PROFILE_2_SLICE 0x1u
#define NVML_GPU_INSTANCE_PROFILE_3_SLICE 0x2u
#define NVML_GPU_INSTANCE_PROFILE_4_SLICE 0x3u
#define NVML_GPU_INSTANCE_PROFILE_7_SLICE 0x4u
#define NVML_GPU_INSTANCE_PROFILE_8_SLICE 0x5u
#define NVML_GPU_INSTANCE_PROFILE_6_SLICE 0x6u
#define NVML_GPU_INSTANCE_PROFILE_1_SLICE_REV1 0x7u /* 1g + media extensions */
#define NVML_GPU_INSTANCE_PROFILE_2_SLICE_REV1 0x8u
#define NVML_GPU_INSTANCE_PROFILE_1_SLICE_REV2 0x9u /* 1g with two memory slices */
#define NVML_GPU_INSTANCE_PROFILE_COUNT 0x12u      /* in the newest headers; older ones stop earlier */
#define NVML_COMPUTE_INSTANCE_PROFILE_1_SLICE 0x0u
#define NVML_COMPUTE_INSTANCE_PROFILE_2_SLICE 0x1u
#define NVML_COMPUTE_INSTANCE_PROFILE_3_SLICE 0x2u
#define NVML_COMPUTE_INSTANCE_PROFILE_4_SLICE 0x3u
#define NVML_COMPUTE_INSTANCE_PROFILE_7_SLICE 0x4u
#define NVML_COMPUTE_INSTANCE_PROFILE_8_SLICE 0x5u
#define NVML_COMPUTE_INSTANCE_PROFILE_6_SLICE 0x6u
#define NVML_COMPUTE_INSTANCE_PROFILE_COUNT 0x9u
#define NVML_COMPUTE_INSTANCE_ENGINE_PROFILE_SHARED 0x0u

/* nvmlDeviceGetAttributes(_v2): of a MIG device, or of a whole GPU. */
typedef struct {
    unsigned int multiprocessorCount;
    unsigned int sharedCopyEngineCount;
    unsigned int sharedDecoderCount;
    unsigned int sharedEncoderCount;
    unsigned int sharedJpegCount;
    unsigned int sharedOfaCount;
    unsigned int gpuInstanceSliceCount;
    unsigned int computeInstanceSliceCount;
    unsigned long long memorySizeMB; /* MiB */
} nvmlDeviceAttributes_t;
_Static_assert(sizeof(nvmlDeviceAttributes_t) == 40, "nvmlDeviceAttributes_t is 40 bytes");
_Static_assert(offsetof(nvmlDeviceAttributes_t, memorySizeMB) == 32, "memorySizeMB at 32");

typedef struct {
    unsigned int start; /* first memory slice */
    unsigned int size;  /* memory slices */
} nvmlGpuInstancePlacement_t;
typedef nvmlGpuInstancePlacement_t nvmlComputeInstancePlacement_t; /* compute slices */

typedef struct {
    unsigned int id;                  /* profile ID (19 = 1g.10gb on H100) */
    unsigned int isP2pSupported;
    unsigned int sliceCount;
    unsigned int instanceCount;
    unsigned int multiprocessorCount;
    unsigned int copyEngineCount;
    unsigned int decoderCount;
    unsigned int encoderCount;
    unsigned int jpegCount;
    unsigned int ofaCount;
    unsigned long long memorySizeMB;
} nvmlGpuInstanceProfileInfo_t;
_Static_assert(sizeof(nvmlGpuInstanceProfileInfo_t) == 48, "GI profile info v1 is 48 bytes");

typedef struct {
    unsigned int version;             /* nvmlGpuInstanceProfileInfo_v2 */
    unsigned int id;
    unsigned int isP2pSupported;
    unsigned int sliceCount;
    unsigned int instanceCount;
    unsigned int multiprocessorCount;
    unsigned int copyEngineCount;
    unsigned int decoderCount;
    unsigned int encoderCount;
    unsigned int jpegCount;
    unsigned int ofaCount;
    unsigned long long memorySizeMB;
    char name[NVML_DEVICE_NAME_V2_BUFFER_SIZE]; /* "MIG 1g.10gb" */
} nvmlGpuInstanceProfileInfo_v2_t;
_Static_assert(sizeof(nvmlGpuInstanceProfileInfo_v2_t) == 152, "GI profile info v2 is 152 bytes");
_Static_assert(offsetof(nvmlGpuInstanceProfileInfo_v2_t, name) == 56, "v2 name at 56");
#define nvmlGpuInstanceProfileInfo_v2 NVML_STRUCT_VERSION(nvmlGpuInstanceProfileInfo_v2_t, 2)

typedef struct {
    unsigned int version;             /* nvmlGpuInstanceProfileInfo_v3: no isP2pSupported */
    unsigned int id;
    unsigned int sliceCount;
    unsigned int instanceCount;
    unsigned int multiprocessorCount;
    unsigned int copyEngineCount;
    unsigned int decoderCount;
    unsigned int encoderCount;
    unsigned int jpegCount;
    unsigned int ofaCount;
    unsigned long long memorySizeMB;
    char name[NVML_DEVICE_NAME_V2_BUFFER_SIZE];
    unsigned int capabilities;        /* 0x1 P2P, 0x2 graphics */
} nvmlGpuInstanceProfileInfo_v3_t;
_Static_assert(sizeof(nvmlGpuInstanceProfileInfo_v3_t) == 152, "GI profile info v3 is 152 bytes");
_Static_assert(offsetof(nvmlGpuInstanceProfileInfo_v3_t, name) == 48, "v3 name at 48");
#define nvmlGpuInstanceProfileInfo_v3 NVML_STRUCT_VERSION(nvmlGpuInstanceProfileInfo_v3_t, 3)

typedef struct {
    nvmlDevice_t device;              /* the parent GPU */
    unsigned int id;                  /* GPU instance ID, unique per GPU */
    unsigned int profileId;
    nvmlGpuInstancePlacement_t placement;
} nvmlGpuInstanceInfo_t;
_Static_assert(sizeof(nvmlGpuInstanceInfo_t) == 24, "nvmlGpuInstanceInfo_t is 24 bytes");

typedef struct {
    unsigned int id;
    unsigned int sliceCount;
    unsigned int instanceCount;
    unsigned int multiprocessorCount;
    unsigned int sharedCopyEngineCount;
    unsigned int sharedDecoderCount;
    unsigned int sharedEncoderCount;
    unsigned int sharedJpegCount;
    unsigned int sharedOfaCount;
} nvmlComputeInstanceProfileInfo_t;
_Static_assert(sizeof(nvmlComputeInstanceProfileInfo_t) == 36, "CI profile info v1 is 36 bytes");

typedef struct {
    unsigned int version;             /* nvmlComputeInstanceProfileInfo_v2 */
    unsigned int id;
    unsigned int sliceCount;
    unsigned int instanceCount;
    unsigned int multiprocessorCount;
    unsigned int sharedCopyEngineCount;
    unsigned int sharedDecoderCount;
    unsigned int sharedEncoderCount;
    unsigned int sharedJpegCount;
    unsigned int sharedOfaCount;
    char name[NVML_DEVICE_NAME_V2_BUFFER_SIZE]; /* "MIG 1c.3g.40gb" */
} nvmlComputeInstanceProfileInfo_v2_t;
_Static_assert(sizeof(nvmlComputeInstanceProfileInfo_v2_t) == 136, "CI profile info v2 is 136 bytes");
#define nvmlComputeInstanceProfileInfo_v2 NVML_STRUCT_VERSION(nvmlComputeInstanceProfileInfo_v2_t, 2)

typedef struct {
    unsigned int version;             /* nvmlComputeInstanceProfileInfo_v3 */
    unsigned int id;
    unsigned int sliceCount;
    unsigned int instanceCount;
    unsigned int multiprocessorCount;
    unsigned int sharedCopyEngineCount;
    unsigned int sharedDecoderCount;
    unsigned int sharedEncoderCount;
    unsigned int sharedJpegCount;
    unsigned int sharedOfaCount;
    char name[NVML_DEVICE_NAME_V2_BUFFER_SIZE];
    unsigned int capabilities;
} nvmlComputeInstanceProfileInfo_v3_t;
_Static_assert(sizeof(nvmlComputeInstanceProfileInfo_v3_t) == 140, "CI profile info v3 is 140 bytes");
#define nvmlComputeInstanceProfileInfo_v3 NVML_STRUCT_VERSION(nvmlComputeInstanceProfileInfo_v3_t, 3)

typedef struct {
    nvmlDevice_t device;
    nvmlGpuInstance_t gpuInstance;
    unsigned int id;                  /* compute instance ID, unique per GPU instance */
    unsigned int profileId;
    nvmlComputeInstancePlacement_t placement; /* _v2 only */
} nvmlComputeInstanceInfo_t;
_Static_assert(sizeof(nvmlComputeInstanceInfo_t) == 32, "nvmlComputeInstanceInfo_t is 32 bytes");

/* GPM metric IDs gpuscope reads (values are percent 0-100, or MiB/s). */
#define NVML_GPM_METRIC_GRAPHICS_UTIL 1u
#define NVML_GPM_METRIC_SM_UTIL 2u
#define NVML_GPM_METRIC_SM_OCCUPANCY 3u
#define NVML_GPM_METRIC_INTEGER_UTIL 4u
#define NVML_GPM_METRIC_ANY_TENSOR_UTIL 5u
#define NVML_GPM_METRIC_DFMA_TENSOR_UTIL 6u
#define NVML_GPM_METRIC_HMMA_TENSOR_UTIL 7u
#define NVML_GPM_METRIC_DMMA_TENSOR_UTIL 8u
#define NVML_GPM_METRIC_IMMA_TENSOR_UTIL 9u
#define NVML_GPM_METRIC_DRAM_BW_UTIL 10u
#define NVML_GPM_METRIC_FP64_UTIL 11u
#define NVML_GPM_METRIC_FP32_UTIL 12u
#define NVML_GPM_METRIC_FP16_UTIL 13u
#define NVML_GPM_METRIC_PCIE_TX_PER_SEC 20u
#define NVML_GPM_METRIC_PCIE_RX_PER_SEC 21u
#define NVML_GPM_METRIC_NVLINK_TOTAL_RX_PER_SEC 60u
#define NVML_GPM_METRIC_NVLINK_TOTAL_TX_PER_SEC 61u
#define NVML_GPM_METRIC_MAX 333u  /* of the newest header; the array below is that long */

typedef struct {
    unsigned int metricId;   /* in */
    nvmlReturn_t nvmlReturn; /* out: this metric's status */
    double value;            /* out: valid when nvmlReturn is SUCCESS (may be NaN) */
    struct {
        char *shortName;
        char *longName;
        char *unit;
    } metricInfo;            /* out: may be NULL */
} nvmlGpmMetric_t;
_Static_assert(sizeof(nvmlGpmMetric_t) == 40, "nvmlGpmMetric_t is 40 bytes");

/* Clients built against older headers pass a shorter metrics[] (its length
 * changed across releases; the version did not): a library may only touch
 * metrics[0 .. numMetrics). */
typedef struct {
    unsigned int version;    /* NVML_GPM_METRICS_GET_VERSION */
    unsigned int numMetrics;
    nvmlGpmSample_t sample1;
    nvmlGpmSample_t sample2;
    nvmlGpmMetric_t metrics[NVML_GPM_METRIC_MAX];
} nvmlGpmMetricsGet_t;
_Static_assert(offsetof(nvmlGpmMetricsGet_t, metrics) == 24, "metrics at 24");
#define NVML_GPM_METRICS_GET_VERSION 1u

typedef struct {
    unsigned int version;           /* NVML_GPM_SUPPORT_VERSION */
    unsigned int isSupportedDevice;
} nvmlGpmSupport_t;
#define NVML_GPM_SUPPORT_VERSION 1u

typedef nvmlReturn_t (*nvmlDeviceGetMigDeviceHandleByIndex_fn)(nvmlDevice_t device, unsigned int index,
                                                               nvmlDevice_t *mig);
typedef nvmlReturn_t (*nvmlDeviceGetAttributes_fn)(nvmlDevice_t device, nvmlDeviceAttributes_t *attr);
typedef nvmlReturn_t (*nvmlDeviceGetGpuInstanceById_fn)(nvmlDevice_t device, unsigned int id,
                                                        nvmlGpuInstance_t *gi);
typedef nvmlReturn_t (*nvmlGpuInstanceGetInfo_fn)(nvmlGpuInstance_t gi, nvmlGpuInstanceInfo_t *info);
typedef nvmlReturn_t (*nvmlGpmQueryDeviceSupport_fn)(nvmlDevice_t device, nvmlGpmSupport_t *support);
typedef nvmlReturn_t (*nvmlGpmSampleAlloc_fn)(nvmlGpmSample_t *sample);
typedef nvmlReturn_t (*nvmlGpmSampleFree_fn)(nvmlGpmSample_t sample);
typedef nvmlReturn_t (*nvmlGpmSampleGet_fn)(nvmlDevice_t device, nvmlGpmSample_t sample);
typedef nvmlReturn_t (*nvmlGpmMigSampleGet_fn)(nvmlDevice_t device, unsigned int gpuInstanceId,
                                               nvmlGpmSample_t sample);
typedef nvmlReturn_t (*nvmlGpmMetricsGet_fn)(nvmlGpmMetricsGet_t *get);

#endif /* GS_NVML_ABI_H */
