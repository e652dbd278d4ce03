/* SPDX-License-Identifier: MIT */
/*
 * cusim_api.h - the functions the CUDA simulator exports (simcuda/libcuda.map),
 * declared with the signatures of src/backend/cuda/cuda_abi.h.
 */
#ifndef GS_CUSIM_API_H
#define GS_CUSIM_API_H

#include "backend/cuda/cuda_abi.h"

CUresult cuInit(unsigned int flags);
CUresult cuDriverGetVersion(int *version);
CUresult cuGetErrorName(CUresult r, const char **name);
CUresult cuGetErrorString(CUresult r, const char **text);
CUresult cuDeviceGetCount(int *count);
CUresult cuDeviceGet(CUdevice *dev, int ordinal);
CUresult cuDeviceGetName(char *name, int len, CUdevice dev);
CUresult cuDeviceGetUuid(CUuuid *uuid, CUdevice dev);
CUresult cuDeviceGetUuid_v2(CUuuid *uuid, CUdevice dev);
CUresult cuDeviceTotalMem_v2(size_t *bytes, CUdevice dev);
CUresult cuDeviceGetAttribute(int *value, int attrib, CUdevice dev);
CUresult cuDeviceGetPCIBusId(char *bus_id, int len, CUdevice dev);
CUresult cuCtxCreate_v2(CUcontext *ctx, unsigned int flags, CUdevice dev);
CUresult cuCtxDestroy_v2(CUcontext ctx);
CUresult cuDevicePrimaryCtxRetain(CUcontext *ctx, CUdevice dev);
CUresult cuDevicePrimaryCtxRelease_v2(CUdevice dev);
CUresult cuCtxSetCurrent(CUcontext ctx);
CUresult cuCtxSynchronize(void);
CUresult cuStreamSynchronize(CUstream stream);
CUresult cuModuleLoadData(CUmodule *mod, const void *image);
CUresult cuModuleLoadDataEx(CUmodule *mod, const void *image, unsigned int nopts, CUjit_option *opts,
                            void **values);
CUresult cuModuleUnload(CUmodule mod);
CUresult cuModuleGetFunction(CUfunction *fn, CUmodule mod, const char *name);
CUresult cuMemGetInfo_v2(size_t *free_bytes, size_t *total_bytes);
CUresult cuMemAlloc_v2(CUdeviceptr *ptr, size_t bytes);
CUresult cuMemFree_v2(CUdeviceptr ptr);
CUresult cuMemcpyHtoD_v2(CUdeviceptr dst, const void *src, size_t bytes);
CUresult cuMemcpyDtoH_v2(void *dst, CUdeviceptr src, size_t bytes);
CUresult cuMemsetD32_v2(CUdeviceptr dst, unsigned int value, size_t count);
CUresult cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                        unsigned shared_bytes, CUstream stream, void **params, void **extra);
CUresult cuEventCreate(CUevent *ev, unsigned int flags);
CUresult cuEventRecord(CUevent ev, CUstream stream);
CUresult cuEventSynchronize(CUevent ev);
CUresult cuEventElapsedTime(float *ms, CUevent start, CUevent end);
CUresult cuEventElapsedTime_v2(float *ms, CUevent start, CUevent end);
CUresult cuEventDestroy_v2(CUevent ev);

/* control: presence of gscusimVersion means "simulator" */
const char *gscusimVersion(void);
int gscusimSettle(int timeout_ms);
double gscusimNextEvent(void);

#endif /* GS_CUSIM_API_H */
