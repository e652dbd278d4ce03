/* SPDX-License-Identifier: MIT */
/*
 * cuda_load.c - find and dlopen libcuda.so.1, bind every function burn uses
 * from one table (newest exported name first; the first dlsym() finds wins and
 * is recorded for `gpuscope burn --debug`), then cuInit and the version check.
 * The versioned names (cuMemAlloc_v2, cuCtxCreate_v2 ...) are what cuda.h's
 * macros have resolved to since CUDA 3.2/4.0 and what the library exports.
 */
#include "backend/cuda/cuda_load.h"

#include <dlfcn.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/cuda/cuda_explain.h"

struct cuda_sym {
    const char *names[2]; /* newest first */
    size_t offset;        /* of the pointer in struct gs_cuda_fns */
    bool required;
};

#define SYM(field) offsetof(struct gs_cuda_fns, field)

static const struct cuda_sym cuda_syms[] = {
    { { "cuInit", NULL }, SYM(init), true },
    { { "cuDriverGetVersion", NULL }, SYM(driver_version), true },
    { { "cuGetErrorName", NULL }, SYM(error_name), false },
    { { "cuGetErrorString", NULL }, SYM(error_string), false },
    { { "cuDeviceGetCount", NULL }, SYM(device_count), true },
    { { "cuDeviceGet", NULL }, SYM(device_get), true },
    { { "cuDeviceGetName", NULL }, SYM(device_name), true },
    { { "cuDeviceGetUuid_v2", "cuDeviceGetUuid" }, SYM(device_uuid), false },
    { { "cuDeviceTotalMem_v2", NULL }, SYM(device_total_mem), true },
    { { "cuDeviceGetAttribute", NULL }, SYM(device_attribute), true },
    { { "cuDeviceGetPCIBusId", NULL }, SYM(device_pci_bus_id), false },
    { { "cuCtxCreate_v2", NULL }, SYM(ctx_create), false },
    { { "cuCtxDestroy_v2", NULL }, SYM(ctx_destroy), false },
    { { "cuDevicePrimaryCtxRetain", NULL }, SYM(primary_retain), false },
    { { "cuDevicePrimaryCtxRelease_v2", "cuDevicePrimaryCtxRelease" }, SYM(primary_release), false },
    { { "cuCtxSetCurrent", NULL }, SYM(ctx_set_current), false },
    { { "cuCtxSynchronize", NULL }, SYM(ctx_synchronize), true },
    { { "cuModuleLoadDataEx", NULL }, SYM(module_load), true },
    { { "cuModuleUnload", NULL }, SYM(module_unload), true },
    { { "cuModuleGetFunction", NULL }, SYM(module_function), true },
    { { "cuMemGetInfo_v2", NULL }, SYM(mem_info), true },
    { { "cuMemAlloc_v2", NULL }, SYM(mem_alloc), true },
    { { "cuMemFree_v2", NULL }, SYM(mem_free), true },
    { { "cuMemcpyHtoD_v2", NULL }, SYM(memcpy_htod), true },
    { { "cuMemcpyDtoH_v2", NULL }, SYM(memcpy_dtoh), true },
    { { "cuMemsetD32_v2", NULL }, SYM(memset_d32), true },
    { { "cuLaunchKernel", NULL }, SYM(launch), true },
    { { "cuStreamSynchronize", NULL }, SYM(stream_synchronize), true },
    { { "cuEventCreate", NULL }, SYM(event_create), true },
    { { "cuEventRecord", NULL }, SYM(event_record), true },
    { { "cuEventSynchronize", NULL }, SYM(event_synchronize), true },
    { { "cuEventElapsedTime_v2", "cuEventElapsedTime" }, SYM(event_elapsed), true },
    { { "cuEventDestroy_v2", NULL }, SYM(event_destroy), true },
};

#define NSYMS (sizeof(cuda_syms) / sizeof(cuda_syms[0]))
_Static_assert(NSYMS <= GS_CUDA_SYM_MAX, "raise GS_CUDA_SYM_MAX");

/* Bind every row; returns the name of the first missing required function, or NULL. */
static const char *cuda_bind_all(struct gs_cuda *cu)
{
    const char *missing = NULL;
    for (size_t i = 0; i < NSYMS; i++) {
        const struct cuda_sym *s = &cuda_syms[i];
        void *p = NULL;
        for (int v = 0; v < 2 && s->names[v] && !p; v++) {
            p = dlsym(cu->handle, s->names[v]);
            if (p)
                cu->bound[i] = s->names[v];
        }
        memcpy((char *)&cu->f + s->offset, &p, sizeof(p));
        if (!p && s->required && !missing)
            missing = s->names[0];
    }
    if (!missing && !cu->f.ctx_create && !cu->f.primary_retain)
        missing = "cuCtxCreate_v2"; /* neither way to make a context */
    if (!missing && cu->f.ctx_create && !cu->f.ctx_destroy)
        cu->f.ctx_create = NULL; /* use the primary context then */
    return missing;
}

static int cuda_dlopen(struct gs_cuda *cu, const char *path, struct gs_err *err)
{
    const char *env = getenv("GPUSCOPE_CUDA_LIB");
    const char *name = (path && *path) ? path : (env && *env) ? env : "libcuda.so.1";
    cu->handle = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (!cu->handle) {
        const char *e = dlerror();
        return gs_cuda_explain_no_library(strcmp(name, "libcuda.so.1") ? name : NULL,
                                          e ? e : "unknown dlopen error", err);
    }
    snprintf(cu->path, sizeof(cu->path), "%s", name);
    cu->simulated = dlsym(cu->handle, "gscusimVersion") != NULL;
    return 0;
}

int gs_cuda_open(struct gs_cuda *cu, const char *path, struct gs_err *err)
{
    memset(cu, 0, sizeof(*cu));
    int rc = cuda_dlopen(cu, path, err);
    if (rc < 0)
        return rc;
    const char *missing = cuda_bind_all(cu);
    if (missing) {
        rc = gs_cuda_explain_missing(cu->path, missing, err);
        goto fail;
    }
    CUresult r = cu->f.init(0);
    if (r != CUDA_SUCCESS) {
        rc = gs_cuda_explain_init(r, gs_cuda_errname(cu, r), gs_cuda_errstr(cu, r), err);
        goto fail;
    }
    if (cu->f.driver_version(&cu->version) != CUDA_SUCCESS)
        cu->version = 0;
    if (cu->version < GS_CUDA_MIN_VERSION) {
        rc = gs_cuda_explain_too_old(cu->version, GS_CUDA_MIN_VERSION, err);
        goto fail;
    }
    return 0;
fail:
    gs_cuda_close(cu);
    return rc;
}

void gs_cuda_close(struct gs_cuda *cu)
{
    if (cu->handle)
        dlclose(cu->handle);
    cu->handle = NULL;
}

/* Names for the codes burn is likely to meet, when the library has none. */
static const struct {
    CUresult r;
    const char *name, *text;
} cuda_texts[] = {
    { CUDA_SUCCESS, "CUDA_SUCCESS", "no error" },
    { CUDA_ERROR_INVALID_VALUE, "CUDA_ERROR_INVALID_VALUE", "invalid argument" },
    { CUDA_ERROR_OUT_OF_MEMORY, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory" },
    { CUDA_ERROR_NOT_INITIALIZED, "CUDA_ERROR_NOT_INITIALIZED", "initialization error" },
    { CUDA_ERROR_STUB_LIBRARY, "CUDA_ERROR_STUB_LIBRARY", "CUDA driver is a stub library" },
    { CUDA_ERROR_DEVICE_UNAVAILABLE, "CUDA_ERROR_DEVICE_UNAVAILABLE", "CUDA-capable device(s) is/are busy or unavailable" },
    { CUDA_ERROR_NO_DEVICE, "CUDA_ERROR_NO_DEVICE", "no CUDA-capable device is detected" },
    { CUDA_ERROR_INVALID_DEVICE, "CUDA_ERROR_INVALID_DEVICE", "invalid device ordinal" },
    { CUDA_ERROR_INVALID_CONTEXT, "CUDA_ERROR_INVALID_CONTEXT", "invalid device context" },
    { CUDA_ERROR_ECC_UNCORRECTABLE, "CUDA_ERROR_ECC_UNCORRECTABLE", "uncorrectable ECC error encountered" },
    { CUDA_ERROR_INVALID_PTX, "CUDA_ERROR_INVALID_PTX", "a PTX JIT compilation failed" },
    { CUDA_ERROR_JIT_COMPILER_NOT_FOUND, "CUDA_ERROR_JIT_COMPILER_NOT_FOUND", "PTX JIT compiler library not found" },
    { CUDA_ERROR_UNSUPPORTED_PTX_VERSION, "CUDA_ERROR_UNSUPPORTED_PTX_VERSION", "the provided PTX was compiled with an unsupported toolchain." },
    { CUDA_ERROR_INVALID_HANDLE, "CUDA_ERROR_INVALID_HANDLE", "invalid resource handle" },
    { CUDA_ERROR_NOT_FOUND, "CUDA_ERROR_NOT_FOUND", "named symbol not found" },
    { CUDA_ERROR_ILLEGAL_ADDRESS, "CUDA_ERROR_ILLEGAL_ADDRESS", "an illegal memory access was encountered" },
    { CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES, "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES", "too many resources requested for launch" },
    { CUDA_ERROR_LAUNCH_TIMEOUT, "CUDA_ERROR_LAUNCH_TIMEOUT", "the launch timed out and was terminated" },
    { CUDA_ERROR_LAUNCH_FAILED, "CUDA_ERROR_LAUNCH_FAILED", "unspecified launch failure" },
    { CUDA_ERROR_SYSTEM_DRIVER_MISMATCH, "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH", "system has unsupported display driver / cuda driver combination" },
    { CUDA_ERROR_UNKNOWN, "CUDA_ERROR_UNKNOWN", "unknown error" },
};

static int cuda_text_index(CUresult r)
{
    for (size_t i = 0; i < sizeof(cuda_texts) / sizeof(cuda_texts[0]); i++)
        if (cuda_texts[i].r == r)
            return (int)i;
    return -1;
}

const char *gs_cuda_errname(const struct gs_cuda *cu, CUresult r)
{
    const char *s = NULL;
    if (cu && cu->f.error_name && cu->f.error_name(r, &s) == CUDA_SUCCESS && s && *s)
        return s;
    int i = cuda_text_index(r);
    return i >= 0 ? cuda_texts[i].name : "CUDA_ERROR_UNKNOWN_CODE";
}

const char *gs_cuda_errstr(const struct gs_cuda *cu, CUresult r)
{
    const char *s = NULL;
    if (cu && cu->f.error_string && cu->f.error_string(r, &s) == CUDA_SUCCESS && s && *s)
        return s;
    int i = cuda_text_index(r);
    return i >= 0 ? cuda_texts[i].text : "unrecognized error code";
}

void gs_cuda_describe(const struct gs_cuda *cu, void (*line)(void *arg, const char *text), void *arg)
{
    char buf[400];
    snprintf(buf, sizeof(buf), "library -> %s (CUDA %d.%d%s)", cu->path, cu->version / 1000,
             cu->version % 1000 / 10, cu->simulated ? ", gpuscope's simulator" : "");
    line(arg, buf);
    for (size_t i = 0; i < NSYMS; i++) {
        const struct cuda_sym *s = &cuda_syms[i];
        snprintf(buf, sizeof(buf), "%s -> %s", s->names[1] ? s->names[1] : s->names[0],
                 cu->bound[i] ? cu->bound[i] : "(absent)");
        line(arg, buf);
    }
}
