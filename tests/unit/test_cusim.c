/* SPDX-License-Identifier: MIT */
/*
 * test_cusim.c - the CUDA simulator seen as a client sees it: dlopen()
 * "$GS_BUILD_DIR/sim/cuda/libcuda.so.1" and check the driver's contracts:
 * errors before cuInit and without a context, device identity (the UUID NVML's
 * simulator derives too), the PTX JIT's answers (malformed, too new, .target
 * above the GPU, an entry without a C equivalent, a wrong parameter count,
 * NOT_FOUND names), memory bounds, results equal to the CPU reference, time
 * from the scenario clock (NOT_READY until it gets there), a corrupt fault, a
 * sticky ILLEGAL_ADDRESS, a lost GPU and CUDA_VISIBLE_DEVICES.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend/cuda/cuda_abi.h"
#include "burn/kernels.h"
#include "scenario.h"

static void *lib;
static char clock_path[256], scn_path[256];

#define FN(type, name) ((type)sym(#name))
static void *sym(const char *name)
{
    void *p = dlsym(lib, name);
    if (!p)
        fail_msg("the CUDA simulator does not export %s", name);
    return p;
}

static void set_time(double t)
{
    FILE *f = fopen(clock_path, "w");
    assert_non_null(f);
    fprintf(f, "%.6f\n", t);
    fclose(f);
}

static const char scenario[] =
    "name cusim\n"
    "gpu count=3 name=\"NVIDIA A100-SXM4-80GB\" cc=8.0\n"
    "gpu 2 name=\"Tesla T4\" cc=7.5\n"
    "cuda gpu=all sms=2 memory=4MiB fp32=1GFLOPS\n"
    "cuda corrupt gpu=0 kernel=gs_burn_rot32 launch=2 count=2\n"
    "at 5 gpu=1 lost\n";

static int setup(void **state)
{
    (void)state;
    char tmpl[] = "/tmp/test_cusim.XXXXXX";
    const char *bd = getenv("GS_BUILD_DIR");
    char path[512];
    if (!mkdtemp(tmpl))
        return -1;
    snprintf(scn_path, sizeof(scn_path), "%s/cusim.scn", tmpl);
    snprintf(clock_path, sizeof(clock_path), "%s/clock", tmpl);
    FILE *f = fopen(scn_path, "w");
    fputs(scenario, f);
    fclose(f);
    setenv("GPUSCOPE_SIM_SCENARIO", scn_path, 1);
    snprintf(path, sizeof(path), "file:%s", clock_path);
    setenv("GPUSCOPE_SIM_CLOCK", path, 1);
    set_time(0);
    snprintf(path, sizeof(path), "%s/sim/cuda/libcuda.so.1", bd && *bd ? bd : "build");
    lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    return lib ? 0 : -1;
}

static void test_before_init(void **state)
{
    (void)state;
    int n;
    CUdevice d;
    assert_int_equal(FN(cuDeviceGetCount_fn, cuDeviceGetCount)(&n), CUDA_ERROR_NOT_INITIALIZED);
    assert_int_equal(FN(cuDeviceGet_fn, cuDeviceGet)(&d, 0), CUDA_ERROR_NOT_INITIALIZED);
    assert_int_equal(FN(cuInit_fn, cuInit)(1), CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(FN(cuInit_fn, cuInit)(0), CUDA_SUCCESS);
    int v = 0;
    assert_int_equal(FN(cuDriverGetVersion_fn, cuDriverGetVersion)(&v), CUDA_SUCCESS);
    assert_int_equal(v, 12040);
    const char *s;
    assert_int_equal(FN(cuGetErrorString_fn, cuGetErrorName)(CUDA_ERROR_LAUNCH_FAILED, &s), CUDA_SUCCESS);
    assert_string_equal(s, "CUDA_ERROR_LAUNCH_FAILED");
    assert_int_equal(FN(cuGetErrorString_fn, cuGetErrorString)(CUDA_ERROR_LAUNCH_FAILED, &s), CUDA_SUCCESS);
    assert_string_equal(s, "unspecified launch failure");
    assert_int_equal(FN(cuGetErrorString_fn, cuGetErrorName)(12345, &s), CUDA_ERROR_INVALID_VALUE);
}

static void test_devices(void **state)
{
    (void)state;
    int n = 0, v = 0;
    char buf[128], want[48];
    CUuuid u;
    assert_int_equal(FN(cuDeviceGetCount_fn, cuDeviceGetCount)(&n), CUDA_SUCCESS);
    assert_int_equal(n, 3);
    assert_int_equal(FN(cuDeviceGetName_fn, cuDeviceGetName)(buf, sizeof(buf), 2), CUDA_SUCCESS);
    assert_string_equal(buf, "Tesla T4");
    assert_int_equal(FN(cuDeviceGetName_fn, cuDeviceGetName)(buf, sizeof(buf), 3), CUDA_ERROR_INVALID_DEVICE);
    assert_int_equal(FN(cuDeviceGetAttribute_fn, cuDeviceGetAttribute)(&v, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, 2), 0);
    assert_int_equal(v, 5);
    assert_int_equal(FN(cuDeviceGetAttribute_fn, cuDeviceGetAttribute)(&v, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, 0), 0);
    assert_int_equal(v, 2);
    assert_int_equal(FN(cuDeviceGetAttribute_fn, cuDeviceGetAttribute)(&v, 9999, 0), CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(FN(cuDeviceGetPCIBusId_fn, cuDeviceGetPCIBusId)(buf, sizeof(buf), 1), CUDA_SUCCESS);
    assert_string_equal(buf, "0000:2A:00.0");
    /* the UUID's 16 bytes are those of the UUID NVML's simulator reports */
    assert_int_equal(FN(cuDeviceGetUuid_fn, cuDeviceGetUuid_v2)(&u, 1), CUDA_SUCCESS);
    struct gs_scn *s = gs_scn_new();
    char err[256];
    assert_int_equal(gs_scn_parse_file(s, scn_path, err, sizeof(err)), 0);
    gs_scn_gpu_ids(s, 1, want, sizeof(want), NULL, 0);
    gs_scn_free(s);
    const unsigned char *b = (const unsigned char *)u.bytes;
    snprintf(buf, sizeof(buf), "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0], b[1],
             b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
    assert_string_equal(buf, want);
    size_t total = 0;
    assert_int_equal(FN(cuDeviceTotalMem_fn, cuDeviceTotalMem_v2)(&total, 0), CUDA_SUCCESS);
    assert_int_equal(total, 4 << 20);
}

static CUcontext ctx0;

static void test_context_and_memory(void **state)
{
    (void)state;
    CUdeviceptr p, q;
    size_t fr, tot;
    assert_int_equal(FN(cuMemAlloc_fn, cuMemAlloc_v2)(&p, 1024), CUDA_ERROR_INVALID_CONTEXT);
    assert_int_equal(FN(cuCtxCreate_fn, cuCtxCreate_v2)(&ctx0, CU_CTX_SCHED_BLOCKING_SYNC, 0), CUDA_SUCCESS);
    assert_int_equal(FN(cuMemGetInfo_fn, cuMemGetInfo_v2)(&fr, &tot), CUDA_SUCCESS);
    assert_true(fr < tot && fr > tot / 2);
    assert_int_equal(FN(cuMemAlloc_fn, cuMemAlloc_v2)(&p, tot), CUDA_ERROR_OUT_OF_MEMORY);
    assert_int_equal(FN(cuMemAlloc_fn, cuMemAlloc_v2)(&p, 4096), CUDA_SUCCESS);
    uint32_t host[1024] = { 1, 2, 3 };
    assert_int_equal(FN(cuMemcpyHtoD_fn, cuMemcpyHtoD_v2)(p, host, 4096), CUDA_SUCCESS);
    assert_int_equal(FN(cuMemcpyHtoD_fn, cuMemcpyHtoD_v2)(p + 8, host, 4096), CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(FN(cuMemcpyDtoH_fn, cuMemcpyDtoH_v2)(host, (CUdeviceptr)(uintptr_t)host, 4), CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(FN(cuMemsetD32_fn, cuMemsetD32_v2)(p, 7, 1024), CUDA_SUCCESS);
    assert_int_equal(FN(cuMemcpyDtoH_fn, cuMemcpyDtoH_v2)(host, p + 4092, 4), CUDA_SUCCESS);
    assert_int_equal(host[0], 7);
    assert_int_equal(FN(cuMemAlloc_fn, cuMemAlloc_v2)(&q, 64), CUDA_SUCCESS);
    assert_int_equal(FN(cuMemFree_fn, cuMemFree_v2)(q), CUDA_SUCCESS);
    assert_int_equal(FN(cuMemFree_fn, cuMemFree_v2)(q), CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(FN(cuMemFree_fn, cuMemFree_v2)(p), CUDA_SUCCESS);
}

static CUresult load(const char *ptx, char *log, size_t cap, CUmodule *m)
{
    CUjit_option o[2] = { CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES };
    void *v[2] = { log, (void *)(uintptr_t)cap };
    log[0] = '\0';
    return FN(cuModuleLoadDataEx_fn, cuModuleLoadDataEx)(m, ptx, 2, o, v);
}

static void test_ptx_jit(void **state)
{
    (void)state;
    char log[512];
    CUmodule m;
    CUfunction f;
    assert_int_equal(load("this is not PTX", log, sizeof(log), &m), CUDA_ERROR_INVALID_PTX);
    assert_non_null(strstr(log, "Parsing error"));
    assert_int_equal(load(".version 9.9\n.target sm_80\n", log, sizeof(log), &m), CUDA_ERROR_UNSUPPORTED_PTX_VERSION);
    assert_int_equal(load(".version 7.0\n.target sm_80\n.visible .entry other(.param .u64 a)\n{\n ret;\n}\n", log,
                          sizeof(log), &m), CUDA_ERROR_INVALID_PTX);
    assert_non_null(strstr(log, "no C equivalent for entry 'other'"));
    assert_int_equal(load(".version 7.0\n.target sm_80\n.visible .entry gs_burn_rot32(.param .u64 a)\n{\n ret;\n}\n",
                          log, sizeof(log), &m), CUDA_ERROR_INVALID_PTX);
    assert_non_null(strstr(log, "has 1 parameters, its C equivalent 3"));
    assert_int_equal(load(".version 7.0\n.target sm_80\n.visible .entry gs_burn_rot32(\n{\n", log, sizeof(log), &m),
                     CUDA_ERROR_INVALID_PTX);
    assert_int_equal(load(gs_burn_ptx_mma, log, sizeof(log), &m), CUDA_SUCCESS);
    assert_int_equal(FN(cuModuleGetFunction_fn, cuModuleGetFunction)(&f, m, "gs_burn_rot32"), CUDA_ERROR_NOT_FOUND);
    assert_int_equal(FN(cuModuleGetFunction_fn, cuModuleGetFunction)(&f, m, "gs_burn_mma"), CUDA_SUCCESS);
    assert_int_equal(FN(cuModuleUnload_fn, cuModuleUnload)(m), CUDA_SUCCESS);
}

/* Launch rot32 twice: results equal the CPU's, time from the clock, a corrupt fault on launch 2. */
static void test_launch_and_time(void **state)
{
    (void)state;
    char log[256];
    CUmodule m;
    CUfunction f;
    CUdeviceptr out;
    CUevent e0, e1;
    uint32_t iters = 100, seed = 3, host[2 * 256];
    float ms;
    void *params[3] = { &out, &iters, &seed };
    assert_int_equal(load(gs_burn_ptx_base, log, sizeof(log), &m), CUDA_SUCCESS);
    assert_int_equal(FN(cuModuleGetFunction_fn, cuModuleGetFunction)(&f, m, "gs_burn_rot32"), CUDA_SUCCESS);
    assert_int_equal(FN(cuMemAlloc_fn, cuMemAlloc_v2)(&out, sizeof(host)), CUDA_SUCCESS);
    assert_int_equal(FN(cuEventCreate_fn, cuEventCreate)(&e0, 0), CUDA_SUCCESS);
    assert_int_equal(FN(cuEventCreate_fn, cuEventCreate)(&e1, 0), CUDA_SUCCESS);
    cuLaunchKernel_fn launch = FN(cuLaunchKernel_fn, cuLaunchKernel);
    assert_int_equal(launch(f, 2, 1, 1, 256, 1, 1, 0, NULL, params, NULL), CUDA_SUCCESS);
    assert_int_equal(launch(f, 2, 2, 1, 256, 1, 1, 0, NULL, params, NULL), CUDA_ERROR_NOT_SUPPORTED);
    assert_int_equal(launch(f, 2, 1, 1, 2048, 1, 1, 0, NULL, params, NULL), CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(FN(cuEventRecord_fn, cuEventRecord)(e0, NULL), CUDA_SUCCESS);
    assert_int_equal(launch(f, 2, 1, 1, 256, 1, 1, 0, NULL, params, NULL), CUDA_SUCCESS);
    assert_int_equal(FN(cuEventRecord_fn, cuEventRecord)(e1, NULL), CUDA_SUCCESS);
    /* 512 threads x 100 trips x 96 FLOPs at 1 GFLOP/s: 4.9 ms of scenario time, not there yet */
    assert_int_equal(FN(cuEventElapsedTime_fn, cuEventElapsedTime)(&ms, e0, e1), CUDA_ERROR_NOT_READY);
    set_time(1);
    assert_int_equal(FN(cuEventSynchronize_fn, cuEventSynchronize)(e1), CUDA_SUCCESS);
    assert_int_equal(FN(cuEventElapsedTime_fn, cuEventElapsedTime)(&ms, e0, e1), CUDA_SUCCESS);
    assert_true(ms > 4.9f && ms < 4.95f);
    assert_int_equal(FN(cuMemcpyDtoH_fn, cuMemcpyDtoH_v2)(host, out, sizeof(host)), CUDA_SUCCESS);
    int differ = 0;
    for (uint32_t i = 0; i < 512; i++)
        differ += host[i] != gs_burn_ref_rot32(i % 256, iters, seed);
    assert_int_equal(differ, 2); /* the scenario's corrupt fault on the second launch */
    assert_int_equal(FN(cuMemFree_fn, cuMemFree_v2)(out), CUDA_SUCCESS);
    FN(cuEventDestroy_fn, cuEventDestroy_v2)(e0);
    FN(cuEventDestroy_fn, cuEventDestroy_v2)(e1);
    FN(cuModuleUnload_fn, cuModuleUnload)(m);
}

/* A kernel writing outside the context's memory ends the context: success at
 * launch, CUDA_ERROR_ILLEGAL_ADDRESS from the next synchronization on. */
static void test_illegal_address(void **state)
{
    (void)state;
    char log[256];
    CUmodule m;
    CUfunction f;
    CUdeviceptr out;
    uint32_t iters = 1, seed = 0;
    void *params[3] = { &out, &iters, &seed };
    assert_int_equal(load(gs_burn_ptx_base, log, sizeof(log), &m), CUDA_SUCCESS);
    assert_int_equal(FN(cuModuleGetFunction_fn, cuModuleGetFunction)(&f, m, "gs_burn_rot32"), CUDA_SUCCESS);
    assert_int_equal(FN(cuMemAlloc_fn, cuMemAlloc_v2)(&out, 256), CUDA_SUCCESS); /* 64 threads' worth */
    assert_int_equal(FN(cuLaunchKernel_fn, cuLaunchKernel)(f, 1, 1, 1, 256, 1, 1, 0, NULL, params, NULL), CUDA_SUCCESS);
    assert_int_equal(FN(cuCtxSynchronize_fn, cuCtxSynchronize)(), CUDA_ERROR_ILLEGAL_ADDRESS);
    assert_int_equal(FN(cuMemAlloc_fn, cuMemAlloc_v2)(&out, 256), CUDA_ERROR_ILLEGAL_ADDRESS);
    assert_int_equal(FN(cuCtxDestroy_fn, cuCtxDestroy_v2)(ctx0), CUDA_SUCCESS);
    assert_int_equal(FN(cuCtxSynchronize_fn, cuCtxSynchronize)(), CUDA_ERROR_INVALID_CONTEXT);
}

/* GPU 1 falls off the bus at 5 s: its context ends with LAUNCH_FAILED, and no new one opens. */
static void test_lost_gpu(void **state)
{
    (void)state;
    CUcontext c;
    int (*settle)(int) = (int (*)(int))sym("gscusimSettle");
    assert_int_equal(settle(10), 0); /* no context: nothing to wait for */
    assert_int_equal(FN(cuDevicePrimaryCtxRetain_fn, cuDevicePrimaryCtxRetain)(&c, 1), CUDA_SUCCESS);
    assert_int_equal(settle(10), -1); /* a context whose thread is not parked on scenario time */
    assert_int_equal(FN(cuCtxSetCurrent_fn, cuCtxSetCurrent)(c), CUDA_SUCCESS);
    assert_int_equal(FN(cuCtxSynchronize_fn, cuCtxSynchronize)(), CUDA_SUCCESS);
    set_time(6);
    assert_int_equal(FN(cuCtxSynchronize_fn, cuCtxSynchronize)(), CUDA_ERROR_LAUNCH_FAILED);
    assert_int_equal(FN(cuDevicePrimaryCtxRelease_fn, cuDevicePrimaryCtxRelease_v2)(1), CUDA_SUCCESS);
    assert_int_equal(FN(cuCtxCreate_fn, cuCtxCreate_v2)(&c, 0, 1), CUDA_ERROR_DEVICE_UNAVAILABLE);
    assert_string_equal(((const char *(*)(void))sym("gscusimVersion"))(), "gpuscope-cudasim 1.0");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_before_init),     cmocka_unit_test(test_devices),
        cmocka_unit_test(test_context_and_memory), cmocka_unit_test(test_ptx_jit),
        cmocka_unit_test(test_launch_and_time), cmocka_unit_test(test_illegal_address),
        cmocka_unit_test(test_lost_gpu),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
