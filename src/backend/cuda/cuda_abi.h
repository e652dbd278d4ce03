/* SPDX-License-Identifier: MIT */
/*
 * cuda_abi.h - our own declarations of the few parts of the CUDA driver API
 * (libcuda.so.1) that `gpuscope burn` uses, shared with the CUDA simulator
 * (simcuda/). gpuscope never links libcuda nor includes NVIDIA's cuda.h: the
 * library is dlopen()ed at run time (cuda_load.c), so the binary builds and
 * runs on machines without a GPU or a CUDA toolkit.
 *
 * Values and signatures follow the public cuda.h (the CUresult codes, the
 * device attribute numbers, the JIT option numbers). Where the library
 * exports a versioned name (cuMemAlloc_v2 ...), that is the one we bind; the
 * comment on each typedef names the symbols.
 */
#ifndef GS_CUDA_ABI_H
#define GS_CUDA_ABI_H

#include <stddef.h>

typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;     /* 64-bit on LP64 */
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;
typedef struct CUevent_st *CUevent;

typedef struct CUuuid_st {
    char bytes[16];
} CUuuid;

/* CUresult values (cuda.h's cudaError_enum); only those we name. */
#define CUDA_SUCCESS 0
#define CUDA_ERROR_INVALID_VALUE 1
#define CUDA_ERROR_OUT_OF_MEMORY 2
#define CUDA_ERROR_NOT_INITIALIZED 3
#define CUDA_ERROR_DEINITIALIZED 4
#define CUDA_ERROR_STUB_LIBRARY 34
#define CUDA_ERROR_DEVICE_UNAVAILABLE 46
#define CUDA_ERROR_NO_DEVICE 100
#define CUDA_ERROR_INVALID_DEVICE 101
#define CUDA_ERROR_INVALID_IMAGE 200
#define CUDA_ERROR_INVALID_CONTEXT 201
#define CUDA_ERROR_NO_BINARY_FOR_GPU 209
#define CUDA_ERROR_ECC_UNCORRECTABLE 214
#define CUDA_ERROR_INVALID_PTX 218
#define CUDA_ERROR_JIT_COMPILER_NOT_FOUND 221
#define CUDA_ERROR_UNSUPPORTED_PTX_VERSION 222
#define CUDA_ERROR_INVALID_HANDLE 400
#define CUDA_ERROR_NOT_FOUND 500
#define CUDA_ERROR_NOT_READY 600
#define CUDA_ERROR_ILLEGAL_ADDRESS 700
#define CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES 701
#define CUDA_ERROR_LAUNCH_TIMEOUT 702
#define CUDA_ERROR_CONTEXT_IS_DESTROYED 709
#define CUDA_ERROR_HARDWARE_STACK_ERROR 714
#define CUDA_ERROR_ILLEGAL_INSTRUCTION 715
#define CUDA_ERROR_LAUNCH_FAILED 719
#define CUDA_ERROR_NOT_PERMITTED 800
#define CUDA_ERROR_NOT_SUPPORTED 801
#define CUDA_ERROR_SYSTEM_NOT_READY 802
#define CUDA_ERROR_SYSTEM_DRIVER_MISMATCH 803
#define CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE 804
#define CUDA_ERROR_UNKNOWN 999

/* CUdevice_attribute values we read. */
#define CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK 1
#define CU_DEVICE_ATTRIBUTE_WARP_SIZE 10
#define CU_DEVICE_ATTRIBUTE_CLOCK_RATE 13               /* kHz */
#define CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT 16
#define CU_DEVICE_ATTRIBUTE_PCI_BUS_ID 33
#define CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID 34
#define CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE 36        /* kHz */
#define CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH 37  /* bits */
#define CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR 39
#define CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID 50
#define CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR 75
#define CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR 76

/* CUjit_option values for cuModuleLoadDataEx. */
#define CU_JIT_INFO_LOG_BUFFER 3
#define CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES 4
#define CU_JIT_ERROR_LOG_BUFFER 5
#define CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES 6
typedef int CUjit_option;

#define CU_CTX_SCHED_BLOCKING_SYNC 0x04 /* sleep in synchronize, do not spin a core */
#define CU_EVENT_DEFAULT 0x0
#define CU_EVENT_BLOCKING_SYNC 0x1

/* Function types, with the exported symbol names bound to them. */
typedef CUresult (*cuInit_fn)(unsigned int flags);                               /* cuInit */
typedef CUresult (*cuDriverGetVersion_fn)(int *version);                        /* cuDriverGetVersion */
typedef CUresult (*cuDeviceGetCount_fn)(int *count);                            /* cuDeviceGetCount */
typedef CUresult (*cuDeviceGet_fn)(CUdevice *dev, int ordinal);                 /* cuDeviceGet */
typedef CUresult (*cuDeviceGetName_fn)(char *name, int len, CUdevice dev);      /* cuDeviceGetName */
typedef CUresult (*cuDeviceGetUuid_fn)(CUuuid *uuid, CUdevice dev);             /* cuDeviceGetUuid_v2, cuDeviceGetUuid */
typedef CUresult (*cuDeviceTotalMem_fn)(size_t *bytes, CUdevice dev);           /* cuDeviceTotalMem_v2 */
typedef CUresult (*cuDeviceGetAttribute_fn)(int *value, int attrib, CUdevice dev); /* cuDeviceGetAttribute */
typedef CUresult (*cuDeviceGetPCIBusId_fn)(char *bus_id, int len, CUdevice dev); /* cuDeviceGetPCIBusId */
typedef CUresult (*cuCtxCreate_fn)(CUcontext *ctx, unsigned int flags, CUdevice dev); /* cuCtxCreate_v2 */
typedef CUresult (*cuCtxDestroy_fn)(CUcontext ctx);                             /* cuCtxDestroy_v2 */
typedef CUresult (*cuDevicePrimaryCtxRetain_fn)(CUcontext *ctx, CUdevice dev);  /* cuDevicePrimaryCtxRetain */
typedef CUresult (*cuDevicePrimaryCtxRelease_fn)(CUdevice dev);                 /* cuDevicePrimaryCtxRelease_v2, cuDevicePrimaryCtxRelease */
typedef CUresult (*cuCtxSetCurrent_fn)(CUcontext ctx);                          /* cuCtxSetCurrent */
typedef CUresult (*cuCtxSynchronize_fn)(void);                                  /* cuCtxSynchronize */
typedef CUresult (*cuModuleLoadDataEx_fn)(CUmodule *mod, const void *image, unsigned int nopts,
                                          CUjit_option *opts, void **values);   /* cuModuleLoadDataEx */
typedef CUresult (*cuModuleUnload_fn)(CUmodule mod);                            /* cuModuleUnload */
typedef CUresult (*cuModuleGetFunction_fn)(CUfunction *fn, CUmodule mod, const char *name); /* cuModuleGetFunction */
typedef CUresult (*cuMemGetInfo_fn)(size_t *free_bytes, size_t *total_bytes);   /* cuMemGetInfo_v2 */
typedef CUresult (*cuMemAlloc_fn)(CUdeviceptr *ptr, size_t bytes);              /* cuMemAlloc_v2 */
typedef CUresult (*cuMemFree_fn)(CUdeviceptr ptr);                              /* cuMemFree_v2 */
typedef CUresult (*cuMemcpyHtoD_fn)(CUdeviceptr dst, const void *src, size_t bytes); /* cuMemcpyHtoD_v2 */
typedef CUresult (*cuMemcpyDtoH_fn)(void *dst, CUdeviceptr src, size_t bytes);  /* cuMemcpyDtoH_v2 */
typedef CUresult (*cuMemsetD32_fn)(CUdeviceptr dst, unsigned int value, size_t count); /* cuMemsetD32_v2 */
typedef CUresult (*cuLaunchKernel_fn)(CUfunction fn, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                                      unsigned by, unsigned bz, unsigned shared_bytes, CUstream stream,
                                      void **params, void **extra);             /* cuLaunchKernel */
typedef CUresult (*cuStreamSynchronize_fn)(CUstream stream);                    /* cuStreamSynchronize */
typedef CUresult (*cuEventCreate_fn)(CUevent *ev, unsigned int flags);          /* cuEventCreate */
typedef CUresult (*cuEventRecord_fn)(CUevent ev, CUstream stream);              /* cuEventRecord */
typedef CUresult (*cuEventSynchronize_fn)(CUevent ev);                          /* cuEventSynchronize */
typedef CUresult (*cuEventElapsedTime_fn)(float *ms, CUevent start, CUevent end); /* cuEventElapsedTime_v2, cuEventElapsedTime */
typedef CUresult (*cuEventDestroy_fn)(CUevent ev);                              /* cuEventDestroy_v2 */
typedef CUresult (*cuGetErrorString_fn)(CUresult r, const char **text);         /* cuGetErrorName, cuGetErrorString */

#endif /* GS_CUDA_ABI_H */
