/* SPDX-License-Identifier: MIT */
/*
 * cuda_load.h - dlopen() of the CUDA driver library (libcuda.so.1) and the
 * one table of its functions that `gpuscope burn` binds, newest exported name
 * first, as nvml_load.c does for NVML. Never linked: a machine without the
 * driver gets an explanation (cuda_explain.c), not a loader error.
 */
#ifndef GS_CUDA_LOAD_H
#define GS_CUDA_LOAD_H

#include <stdbool.h>

#include "backend/cuda/cuda_abi.h"
#include "core/err.h"

/* The oldest driver whose PTX JIT takes our kernels (PTX ISA 6.4: CUDA 10.1). */
#define GS_CUDA_MIN_VERSION 10010
/* The tensor-core kernel is PTX ISA 7.0 (mma.sync.m16n8k16): CUDA 11.0. */
#define GS_CUDA_MMA_VERSION 11000

struct gs_cuda_fns {
    cuInit_fn init;
    cuDriverGetVersion_fn driver_version;
    cuGetErrorString_fn error_name;
    cuGetErrorString_fn error_string;
    cuDeviceGetCount_fn device_count;
    cuDeviceGet_fn device_get;
    cuDeviceGetName_fn device_name;
    cuDeviceGetUuid_fn device_uuid;
    cuDeviceTotalMem_fn device_total_mem;
    cuDeviceGetAttribute_fn device_attribute;
    cuDeviceGetPCIBusId_fn device_pci_bus_id;
    cuCtxCreate_fn ctx_create;
    cuCtxDestroy_fn ctx_destroy;
    cuDevicePrimaryCtxRetain_fn primary_retain;
    cuDevicePrimaryCtxRelease_fn primary_release;
    cuCtxSetCurrent_fn ctx_set_current;
    cuCtxSynchronize_fn ctx_synchronize;
    cuModuleLoadDataEx_fn module_load;
    cuModuleUnload_fn module_unload;
    cuModuleGetFunction_fn module_function;
    cuMemGetInfo_fn mem_info;
    cuMemAlloc_fn mem_alloc;
    cuMemFree_fn mem_free;
    cuMemcpyHtoD_fn memcpy_htod;
    cuMemcpyDtoH_fn memcpy_dtoh;
    cuMemsetD32_fn memset_d32;
    cuLaunchKernel_fn launch;
    cuStreamSynchronize_fn stream_synchronize;
    cuEventCreate_fn event_create;
    cuEventRecord_fn event_record;
    cuEventSynchronize_fn event_synchronize;
    cuEventElapsedTime_fn event_elapsed;
    cuEventDestroy_fn event_destroy;
};

#define GS_CUDA_SYM_MAX 40

struct gs_cuda {
    void *handle;
    char path[256];                     /* name or path that loaded */
    int version;                        /* cuDriverGetVersion: 12040 for 12.4 */
    bool simulated;                     /* gpuscope's CUDA simulator (exports gscusimVersion) */
    struct gs_cuda_fns f;
    const char *bound[GS_CUDA_SYM_MAX]; /* per table row: the name bound, NULL if none */
};

/* Load path, else $GPUSCOPE_CUDA_LIB, else libcuda.so.1; bind the table; call
 * cuInit(0) and cuDriverGetVersion. Every failure (no library, the toolkit's
 * stub, a missing function, a driver older than GS_CUDA_MIN_VERSION, cuInit's
 * error) fills err with what to do. */
int gs_cuda_open(struct gs_cuda *cu, const char *path, struct gs_err *err);
void gs_cuda_close(struct gs_cuda *cu);
/* "CUDA_ERROR_LAUNCH_FAILED" (the library's name, or ours), never NULL. */
const char *gs_cuda_errname(const struct gs_cuda *cu, CUresult r);
/* The library's sentence for r ("unspecified launch failure"), never NULL. */
const char *gs_cuda_errstr(const struct gs_cuda *cu, CUresult r);
/* One line per table row: "cuMemAlloc -> cuMemAlloc_v2". */
void gs_cuda_describe(const struct gs_cuda *cu, void (*line)(void *arg, const char *text), void *arg);

#endif /* GS_CUDA_LOAD_H */
