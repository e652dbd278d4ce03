/* SPDX-License-Identifier: MIT */
/*
 * test_sim_mig.c - the simulator's MIG and GPM as a client sees them through
 * dlopen(): MIG device handles (count, index, parent, GI/CI IDs, UUID format,
 * name, per-instance memory and processes, NOT_SUPPORTED for the rest), the GPU
 * and compute instance API, the scenario's layout errors, GPM support per
 * architecture and profile, samples and metrics computed between two samples.
 * Run from the repository root (tests/run-tests does so).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <dlfcn.h>
#include <limits.h>
#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim_dl.h"


/* A scenario given as text or a shipped name; fixed clock at t; initialised. */
static void *start_at(const char *profile, const char *scn, double t, nvmlReturn_t want)
{
    char path[64] = "";
    void *h = lib(profile);
    F(h, gssimReset)();
    setenv("GPUSCOPE_SIM_SCENARIO_DIR", "sim/scenarios", 1);
    if (strchr(scn, '\n')) {
        snprintf(path, sizeof(path), "/tmp/gs-sim-mig-XXXXXX.scn");
        int fd = mkstemps(path, 4);
        assert_true(fd >= 0);
        assert_int_equal(write(fd, scn, strlen(scn)), (ssize_t)strlen(scn));
        close(fd);
        setenv("GPUSCOPE_SIM_SCENARIO", path, 1);
    } else {
        setenv("GPUSCOPE_SIM_SCENARIO", scn, 1);
    }
    unsetenv("GPUSCOPE_SIM_FAULTS");
    setenv("GPUSCOPE_SIM_CLOCK", "fixed:0", 1);
    F(h, gssimClockSet)(t);
    assert_int_equal(F(h, nvmlInit_v2)(), want);
    if (path[0])
        unlink(path);
    return h;
}

static void stop(void *h)
{
    F(h, nvmlShutdown)();
    F(h, gssimReset)();
}

static nvmlDevice_t migdev(void *h, nvmlDevice_t parent, unsigned i)
{
    nvmlDevice_t m = NULL;
    assert_int_equal(F(h, nvmlDeviceGetMigDeviceHandleByIndex)(parent, i, &m), NVML_SUCCESS);
    return m;
}

/* ---- MIG device handles ------------------------------------------------------------------- */

static void test_mig_handles(void **state)
{
    (void)state;
    void *h = start_at("current", "mig-h100", 10, NVML_SUCCESS);
    nvmlDevice_t g0 = dev(h, 0), g1 = dev(h, 1), m, back = NULL;
    unsigned n = 99, id, isMig = 9, cur, pend;
    char buf[96];

    assert_int_equal(F(h, nvmlDeviceGetMigMode)(g0, &cur, &pend), NVML_SUCCESS);
    assert_int_equal(cur, NVML_DEVICE_MIG_ENABLE);
    assert_int_equal(F(h, nvmlDeviceGetMaxMigDeviceCount)(g0, &n), NVML_SUCCESS);
    assert_int_equal(n, 7);
    assert_int_equal(F(h, nvmlDeviceGetMaxMigDeviceCount)(g1, &n), NVML_SUCCESS);
    assert_int_equal(n, 0); /* MIG off */
    assert_int_equal(F(h, nvmlDeviceGetMigDeviceHandleByIndex)(g1, 0, &m), NVML_ERROR_NOT_SUPPORTED);
    /* four instances, ordered by GPU instance ID: 2 (3g), 3 (2g), 9, 10 (1g) */
    static const unsigned gis[4] = {2, 3, 9, 10};
    static const char *const names[4] = {"NVIDIA H100 80GB HBM3 MIG 3g.40gb", "NVIDIA H100 80GB HBM3 MIG 2g.20gb",
                                         "NVIDIA H100 80GB HBM3 MIG 1g.10gb", "NVIDIA H100 80GB HBM3 MIG 1g.10gb"};
    regex_t re;
    assert_int_equal(regcomp(&re, "^MIG-[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$",
                             REG_EXTENDED | REG_NOSUB), 0);
    for (unsigned i = 0; i < 4; i++) {
        m = migdev(h, g0, i);
        assert_int_equal(F(h, nvmlDeviceIsMigDeviceHandle)(m, &isMig), NVML_SUCCESS);
        assert_int_equal(isMig, 1);
        assert_int_equal(F(h, nvmlDeviceGetGpuInstanceId)(m, &id), NVML_SUCCESS);
        assert_int_equal(id, gis[i]);
        assert_int_equal(F(h, nvmlDeviceGetComputeInstanceId)(m, &id), NVML_SUCCESS);
        assert_int_equal(id, 0);
        assert_int_equal(F(h, nvmlDeviceGetIndex)(m, &id), NVML_SUCCESS);
        assert_int_equal(id, i);
        assert_int_equal(F(h, nvmlDeviceGetName)(m, buf, sizeof(buf)), NVML_SUCCESS);
        assert_string_equal(buf, names[i]);
        assert_int_equal(F(h, nvmlDeviceGetUUID)(m, buf, sizeof(buf)), NVML_SUCCESS);
        assert_int_equal(regexec(&re, buf, 0, NULL, 0), 0);
        assert_int_equal(F(h, nvmlDeviceGetDeviceHandleFromMigDeviceHandle)(m, &back), NVML_SUCCESS);
        assert_ptr_equal(back, g0);
        nvmlDevice_t byuuid = NULL;
        assert_int_equal(F(h, nvmlDeviceGetHandleByUUID)(buf, &byuuid), NVML_SUCCESS);
        assert_ptr_equal(byuuid, m);
    }
    regfree(&re);
    assert_int_equal(F(h, nvmlDeviceGetMigDeviceHandleByIndex)(g0, 4, &m), NVML_ERROR_NOT_FOUND); /* empty slot */
    assert_int_equal(F(h, nvmlDeviceGetMigDeviceHandleByIndex)(g0, 7, &m), NVML_ERROR_INVALID_ARGUMENT);
    assert_int_equal(F(h, nvmlDeviceIsMigDeviceHandle)(g0, &isMig), NVML_SUCCESS);
    assert_int_equal(isMig, 0);
    assert_int_equal(F(h, nvmlDeviceGetDeviceHandleFromMigDeviceHandle)(g0, &back), NVML_ERROR_INVALID_ARGUMENT);
    assert_int_equal(F(h, nvmlDeviceGetGpuInstanceId)(g0, &id), NVML_ERROR_NOT_SUPPORTED);
    /* a MIG device is not a GPU: what NVML does not support per instance answers so */
    m = migdev(h, g0, 0);
    nvmlUtilization_t u;
    unsigned v;
    assert_int_equal(F(h, nvmlDeviceGetUtilizationRates)(m, &u), NVML_ERROR_NOT_SUPPORTED);
    assert_int_equal(F(h, nvmlDeviceGetTemperature)(m, NVML_TEMPERATURE_GPU, &v), NVML_ERROR_NOT_SUPPORTED);
    assert_int_equal(F(h, nvmlDeviceGetPowerUsage)(m, &v), NVML_ERROR_NOT_SUPPORTED);
    assert_int_equal(F(h, nvmlDeviceGetMaxMigDeviceCount)(m, &v), NVML_ERROR_NOT_SUPPORTED);
    /* the whole GPU in MIG mode: no utilization either */
    assert_int_equal(F(h, nvmlDeviceGetUtilizationRates)(g0, &u), NVML_ERROR_NOT_SUPPORTED);
    assert_int_equal(F(h, nvmlDeviceGetUtilizationRates)(g1, &u), NVML_SUCCESS);
    stop(h);
}

static void test_mig_memory_and_processes(void **state)
{
    (void)state;
    void *h = start_at("current", "mig-h100", 10, NVML_SUCCESS);
    nvmlDevice_t g0 = dev(h, 0);
    nvmlMemory_v2_t mem = {.version = nvmlMemory_v2};
    nvmlMemory_t m1;
    nvmlProcessInfo_t procs[8];
    unsigned n;
    nvmlDeviceAttributes_t a;

    nvmlDevice_t m3g = migdev(h, g0, 0), m1g = migdev(h, g0, 3);
    assert_int_equal(F(h, nvmlDeviceGetMemoryInfo_v2)(m3g, &mem), NVML_SUCCESS);
    assert_int_equal(mem.total, 40448ull << 20);
    assert_true(mem.used > 31ull << 30 && mem.used < 35ull << 30); /* the fine-tuning job + the driver's */
    assert_int_equal(mem.total, mem.used + mem.free + mem.reserved);
    assert_int_equal(F(h, nvmlDeviceGetMemoryInfo)(m1g, &m1), NVML_SUCCESS);
    assert_int_equal(m1.total, 9984ull << 20);
    assert_int_equal(m1.used, 12ull << 20); /* idle instance */
    /* processes: the parent lists all, with their instance IDs; a MIG handle only its own */
    n = 8;
    assert_int_equal(F(h, nvmlDeviceGetComputeRunningProcesses_v3)(g0, &n, procs), NVML_SUCCESS);
    assert_int_equal(n, 3);
    assert_int_equal(procs[0].gpuInstanceId, 2);
    assert_int_equal(procs[0].computeInstanceId, 0);
    n = 8;
    assert_int_equal(F(h, nvmlDeviceGetComputeRunningProcesses_v3)(migdev(h, g0, 1), &n, procs), NVML_SUCCESS);
    assert_int_equal(n, 1);
    assert_int_equal(procs[0].gpuInstanceId, 3);
    n = 8;
    assert_int_equal(F(h, nvmlDeviceGetComputeRunningProcesses_v3)(m1g, &n, procs), NVML_SUCCESS);
    assert_int_equal(n, 0);
    /* attributes: of the instance, and of the whole GPU */
    assert_int_equal(F(h, nvmlDeviceGetAttributes_v2)(m3g, &a), NVML_SUCCESS);
    assert_int_equal(a.multiprocessorCount, 60);
    assert_int_equal(a.gpuInstanceSliceCount, 3);
    assert_int_equal(a.computeInstanceSliceCount, 3);
    assert_int_equal(a.memorySizeMB, 40448);
    assert_int_equal(F(h, nvmlDeviceGetAttributes_v2)(g0, &a), NVML_SUCCESS);
    assert_int_equal(a.multiprocessorCount, 132);
    stop(h);
}

static void test_gpu_instance_api(void **state)
{
    (void)state;
    void *h = start_at("current", "mig-h100", 10, NVML_SUCCESS);
    nvmlDevice_t g0 = dev(h, 0), g1 = dev(h, 1);
    nvmlGpuInstanceProfileInfo_v2_t pi = {.version = nvmlGpuInstanceProfileInfo_v2};
    nvmlGpuInstanceProfileInfo_t p1;
    nvmlGpuInstance_t gis[8], gi;
    nvmlGpuInstanceInfo_t info;
    nvmlComputeInstance_t cis[8];
    nvmlComputeInstanceInfo_t cinfo;
    nvmlComputeInstanceProfileInfo_v2_t cpi = {.version = nvmlComputeInstanceProfileInfo_v2};
    unsigned n;

    assert_int_equal(F(h, nvmlDeviceGetGpuInstanceProfileInfoV)(g0, NVML_GPU_INSTANCE_PROFILE_1_SLICE, &pi), NVML_SUCCESS);
    assert_string_equal(pi.name, "MIG 1g.10gb");
    assert_int_equal(pi.id, 19);
    assert_int_equal(pi.instanceCount, 7);
    assert_int_equal(pi.memorySizeMB, 9984);
    assert_int_equal(F(h, nvmlDeviceGetGpuInstanceProfileInfo)(g0, NVML_GPU_INSTANCE_PROFILE_3_SLICE, &p1), NVML_SUCCESS);
    assert_int_equal(p1.id, 9);
    assert_int_equal(p1.multiprocessorCount, 60);
    assert_int_equal(F(h, nvmlDeviceGetGpuInstanceProfileInfo)(g0, NVML_GPU_INSTANCE_PROFILE_8_SLICE, &p1),
                     NVML_ERROR_NOT_SUPPORTED);
    assert_int_equal(F(h, nvmlDeviceGetGpuInstanceProfileInfo)(g0, 0x40, &p1), NVML_ERROR_INVALID_ARGUMENT);
    assert_int_equal(F(h, nvmlDeviceGetGpuInstanceProfileInfo)(g1, 0, &p1), NVML_ERROR_NOT_SUPPORTED); /* MIG off */
    pi.version = 2; /* not NVML_STRUCT_VERSION */
    assert_int_equal(F(h, nvmlDeviceGetGpuInstanceProfileInfoV)(g0, 0, &pi), NVML_ERROR_INVALID_ARGUMENT);
    assert_int_equal(F(h, nvmlDeviceGetGpuInstances)(g0, 19, gis, &n), NVML_SUCCESS);
    assert_int_equal(n, 2);
    assert_int_equal(F(h, nvmlGpuInstanceGetInfo)(gis[0], &info), NVML_SUCCESS);
    assert_ptr_equal(info.device, g0);
    assert_int_equal(info.id, 9);
    assert_int_equal(info.profileId, 19);
    assert_int_equal(info.placement.start, 2);
    assert_int_equal(info.placement.size, 1);
    assert_int_equal(F(h, nvmlDeviceGetGpuInstanceById)(g0, 2, &gi), NVML_SUCCESS);
    assert_int_equal(F(h, nvmlGpuInstanceGetInfo)(gi, &info), NVML_SUCCESS);
    assert_int_equal(info.placement.start, 4);
    assert_int_equal(info.placement.size, 4);
    assert_int_equal(F(h, nvmlDeviceGetGpuInstanceById)(g0, 5, &gi), NVML_ERROR_NOT_FOUND);
    assert_int_equal(F(h, nvmlDeviceGetGpuInstanceById)(g0, 2, &gi), NVML_SUCCESS);
    assert_int_equal(F(h, nvmlGpuInstanceGetComputeInstanceProfileInfoV)(gi, NVML_COMPUTE_INSTANCE_PROFILE_3_SLICE,
                                                                          0, &cpi), NVML_SUCCESS);
    assert_string_equal(cpi.name, "MIG 3g.40gb");
    assert_int_equal(F(h, nvmlGpuInstanceGetComputeInstanceProfileInfoV)(gi, NVML_COMPUTE_INSTANCE_PROFILE_1_SLICE,
                                                                          0, &cpi), NVML_SUCCESS);
    assert_string_equal(cpi.name, "MIG 1c.3g.40gb");
    assert_int_equal(cpi.multiprocessorCount, 20);
    assert_int_equal(F(h, nvmlGpuInstanceGetComputeInstances)(gi, NVML_COMPUTE_INSTANCE_PROFILE_3_SLICE, cis, &n),
                     NVML_SUCCESS);
    assert_int_equal(n, 1);
    assert_int_equal(F(h, nvmlComputeInstanceGetInfo_v2)(cis[0], &cinfo), NVML_SUCCESS);
    assert_ptr_equal(cinfo.device, g0);
    assert_ptr_equal(cinfo.gpuInstance, gi);
    assert_int_equal(cinfo.id, 0);
    assert_int_equal(cinfo.placement.size, 3);
    assert_int_equal(F(h, nvmlGpuInstanceGetInfo)((nvmlGpuInstance_t)(void *)g0, &info), NVML_ERROR_INVALID_ARGUMENT);
    stop(h);
}

/* A GPU instance split into one compute instance per slice: one MIG device each. */
static void test_compute_instances(void **state)
{
    (void)state;
    void *h = start_at("current",
                       "gpu 0 name=\"NVIDIA H100 80GB HBM3\" arch=hopper memory_total=81559MiB mig=on\n"
                       "mig 0 profile=3g.40gb cis=3\n"
                       "proc 0 gi=1 ci=2 mem=1GiB\n",
                       10, NVML_SUCCESS);
    nvmlDevice_t g0 = dev(h, 0);
    char buf[96];
    unsigned id, n;
    nvmlProcessInfo_t procs[4];
    for (unsigned i = 0; i < 3; i++) {
        nvmlDevice_t m = migdev(h, g0, i);
        assert_int_equal(F(h, nvmlDeviceGetGpuInstanceId)(m, &id), NVML_SUCCESS);
        assert_int_equal(id, 1); /* placement 0 of a half: GPU instance 1 */
        assert_int_equal(F(h, nvmlDeviceGetComputeInstanceId)(m, &id), NVML_SUCCESS);
        assert_int_equal(id, i);
        assert_int_equal(F(h, nvmlDeviceGetName)(m, buf, sizeof(buf)), NVML_SUCCESS);
        assert_string_equal(buf, "NVIDIA H100 80GB HBM3 MIG 1c.3g.40gb");
        n = 4;
        assert_int_equal(F(h, nvmlDeviceGetComputeRunningProcesses_v3)(m, &n, procs), NVML_SUCCESS);
        assert_int_equal(n, i == 2 ? 1 : 0);
    }
    stop(h);
}

static void test_layout_errors(void **state)
{
    (void)state;
    static const char *const bad[] = {
        /* no MIG profiles for this GPU */
        "gpu 0 arch=ampere memory_total=24GiB mig=on\nmig 0 profile=1g.6gb\n",
        /* unknown profile on an H100 */
        "gpu 0 arch=hopper memory_total=80GiB mig=on\nmig 0 profile=1g.5gb\n",
        /* more than fits */
        "gpu 0 arch=hopper memory_total=80GiB mig=on\nmig 0 profile=4g.40gb\nmig 0 profile=4g.40gb\n",
        /* a placement the profile does not allow */
        "gpu 0 arch=hopper memory_total=80GiB mig=on\nmig 0 profile=3g.40gb placement=2\n",
        /* two instances with one ID */
        "gpu 0 arch=hopper memory_total=80GiB mig=on\nmig 0 profile=1g.10gb gi=7\nmig 0 profile=1g.10gb gi=7\n",
        /* compute instances that do not divide the instance */
        "gpu 0 arch=hopper memory_total=80GiB mig=on\nmig 0 profile=3g.40gb cis=2\n",
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        void *h = start_at("current", bad[i], 0, NVML_ERROR_UNKNOWN);
        F(h, gssimReset)();
    }
    /* 7 x 1g.10gb fill a GPU; IDs 7..13 as the driver numbers them */
    void *h = start_at("current", "gpu 0 arch=hopper memory_total=80GiB mig=on\nmig 0 count=7 profile=1g.10gb\n", 0,
                       NVML_SUCCESS);
    unsigned id;
    for (unsigned i = 0; i < 7; i++) {
        assert_int_equal(F(h, nvmlDeviceGetGpuInstanceId)(migdev(h, dev(h, 0), i), &id), NVML_SUCCESS);
        assert_int_equal(id, 7 + i);
    }
    stop(h);
}

/* ---- GPM ---------------------------------------------------------------------------------- */

static nvmlReturn_t metrics(void *h, nvmlGpmSample_t a, nvmlGpmSample_t b, const unsigned *ids, unsigned n,
                            double *out, nvmlReturn_t *each)
{
    static nvmlGpmMetricsGet_t mg;
    memset(&mg, 0, sizeof(mg));
    mg.version = NVML_GPM_METRICS_GET_VERSION;
    mg.numMetrics = n;
    mg.sample1 = a;
    mg.sample2 = b;
    for (unsigned i = 0; i < n; i++)
        mg.metrics[i].metricId = ids[i];
    nvmlReturn_t r = F(h, nvmlGpmMetricsGet)(&mg);
    for (unsigned i = 0; i < n; i++) {
        out[i] = mg.metrics[i].value;
        each[i] = mg.metrics[i].nvmlReturn;
    }
    return r;
}

static void test_gpm_support(void **state)
{
    (void)state;
    void *h = start_at("current",
                       "gpu 0 arch=hopper\ngpu 1 arch=ampere\ngpu 2 arch=hopper unsupported=gpm\n", 10, NVML_SUCCESS);
    nvmlGpmSupport_t sup = {.version = NVML_GPM_SUPPORT_VERSION};
    nvmlGpmSample_t s;
    assert_int_equal(F(h, nvmlGpmQueryDeviceSupport)(dev(h, 0), &sup), NVML_SUCCESS);
    assert_int_equal(sup.isSupportedDevice, 1);
    assert_int_equal(F(h, nvmlGpmQueryDeviceSupport)(dev(h, 1), &sup), NVML_SUCCESS);
    assert_int_equal(sup.isSupportedDevice, 0);
    assert_int_equal(F(h, nvmlGpmQueryDeviceSupport)(dev(h, 2), &sup), NVML_SUCCESS);
    assert_int_equal(sup.isSupportedDevice, 0);
    sup.version = 0;
    assert_int_equal(F(h, nvmlGpmQueryDeviceSupport)(dev(h, 0), &sup), NVML_ERROR_ARGUMENT_VERSION_MISMATCH);
    assert_int_equal(F(h, nvmlGpmSampleAlloc)(&s), NVML_SUCCESS);
    assert_int_equal(F(h, nvmlGpmSampleGet)(dev(h, 1), s), NVML_ERROR_NOT_SUPPORTED); /* pre-Hopper */
    assert_int_equal(F(h, nvmlGpmSampleGet)(dev(h, 0), s), NVML_SUCCESS);
    assert_int_equal(F(h, nvmlGpmSampleFree)(s), NVML_SUCCESS);
    assert_int_equal(F(h, nvmlGpmSampleFree)(s), NVML_ERROR_INVALID_ARGUMENT); /* already freed */
    assert_int_equal(F(h, nvmlGpmSampleGet)(dev(h, 0), s), NVML_ERROR_INVALID_ARGUMENT);
    stop(h);
    /* R470 has no GPM at all */
    assert_null(dlsym(lib("r470"), "nvmlGpmSampleGet"));
}

static void test_gpm_metrics(void **state)
{
    (void)state;
    void *h = start_at("current",
                       "gpu 0 arch=hopper nvlinks=18 util=step(40,80,20) mem_util=30 tensor_active=50 "
                       "pcie_tx=1048576 pcie_rx=2097152 nvlink_tx=10485760\n"
                       "gpu 1 arch=hopper nvlinks=0\n",
                       10, NVML_SUCCESS);
    static const unsigned ids[] = {NVML_GPM_METRIC_GRAPHICS_UTIL, NVML_GPM_METRIC_SM_UTIL,
                                   NVML_GPM_METRIC_ANY_TENSOR_UTIL, NVML_GPM_METRIC_DRAM_BW_UTIL,
                                   NVML_GPM_METRIC_PCIE_TX_PER_SEC, NVML_GPM_METRIC_PCIE_RX_PER_SEC,
                                   NVML_GPM_METRIC_NVLINK_TOTAL_TX_PER_SEC, NVML_GPM_METRIC_INTEGER_UTIL};
    double v[8];
    nvmlReturn_t each[8];
    nvmlGpmSample_t a, b, c1;
    assert_int_equal(F(h, nvmlGpmSampleAlloc)(&a), NVML_SUCCESS);
    assert_int_equal(F(h, nvmlGpmSampleAlloc)(&b), NVML_SUCCESS);
    assert_int_equal(F(h, nvmlGpmSampleAlloc)(&c1), NVML_SUCCESS);
    assert_int_equal(F(h, nvmlGpmSampleGet)(dev(h, 0), a), NVML_SUCCESS);
    /* the same 100 ms: no interval, NaN */
    assert_int_equal(F(h, nvmlGpmSampleGet)(dev(h, 0), b), NVML_SUCCESS);
    assert_int_equal(metrics(h, a, b, ids, 1, v, each), NVML_SUCCESS);
    assert_int_equal(each[0], NVML_SUCCESS);
    assert_true(isnan(v[0]));
    /* 10 s at 40 %, then 10 s at 80 %: the interval's mean */
    F(h, gssimClockSet)(30);
    assert_int_equal(F(h, nvmlGpmSampleGet)(dev(h, 0), b), NVML_SUCCESS);
    assert_int_equal(metrics(h, a, b, ids, 8, v, each), NVML_SUCCESS);
    for (int i = 0; i < 7; i++)
        assert_int_equal(each[i], NVML_SUCCESS);
    assert_true(fabs(v[0] - 60) < 0.5);
    assert_true(fabs(v[1] - 60 * 0.93) < 0.5);  /* sm_active follows gr_active */
    assert_true(fabs(v[2] - 50) < 0.01);
    assert_true(fabs(v[3] - 30) < 0.01);
    assert_true(fabs(v[4] - 1048576 * 1000.0 / 1048576) < 0.01); /* KB/s -> MiB/s */
    assert_true(fabs(v[5] - 2097152 * 1000.0 / 1048576) < 0.01);
    assert_true(fabs(v[6] - 10485760 * 1000.0 / 1048576) < 0.01);
    assert_int_equal(each[7], NVML_ERROR_NOT_SUPPORTED); /* not modelled */
    /* samples of different GPUs cannot be combined; no NVLink on a board without links */
    assert_int_equal(F(h, nvmlGpmSampleGet)(dev(h, 1), c1), NVML_SUCCESS);
    assert_int_equal(metrics(h, a, c1, ids, 1, v, each), NVML_ERROR_INVALID_ARGUMENT);
    F(h, gssimClockSet)(31);
    assert_int_equal(F(h, nvmlGpmSampleGet)(dev(h, 1), a), NVML_SUCCESS);
    assert_int_equal(metrics(h, c1, a, ids + 6, 1, v, each), NVML_SUCCESS);
    assert_int_equal(each[0], NVML_ERROR_NOT_SUPPORTED);
    stop(h);
}

static void test_gpm_mig(void **state)
{
    (void)state;
    void *h = start_at("current",
                       "gpu 0 name=\"NVIDIA H100 80GB HBM3\" arch=hopper memory_total=81559MiB mig=on pcie_tx=1000\n"
                       "mig 0 profile=4g.40gb util=10\n"
                       "mig 0 profile=3g.40gb util=90 tensor_active=45\n",
                       10, NVML_SUCCESS);
    static const unsigned ids[] = {NVML_GPM_METRIC_GRAPHICS_UTIL, NVML_GPM_METRIC_ANY_TENSOR_UTIL,
                                   NVML_GPM_METRIC_PCIE_TX_PER_SEC};
    double v[3];
    nvmlReturn_t each[3];
    nvmlGpmSample_t a, b;
    nvmlDevice_t g0 = dev(h, 0);
    F(h, nvmlGpmSampleAlloc)(&a);
    F(h, nvmlGpmSampleAlloc)(&b);
    /* the 4g takes slices 0-3 (GPU instance 1), the 3g slices 4-7 (GPU instance 2) */
    assert_int_equal(F(h, nvmlGpmMigSampleGet)(g0, 2, a), NVML_SUCCESS);
    F(h, gssimClockSet)(11);
    assert_int_equal(F(h, nvmlGpmMigSampleGet)(g0, 2, b), NVML_SUCCESS);
    assert_int_equal(metrics(h, a, b, ids, 3, v, each), NVML_SUCCESS);
    assert_true(fabs(v[0] - 90) < 0.01);
    assert_true(fabs(v[1] - 45) < 0.01);
    assert_int_equal(each[2], NVML_ERROR_NOT_SUPPORTED); /* PCIe is the GPU's, not an instance's */
    assert_int_equal(F(h, nvmlGpmMigSampleGet)(g0, 5, a), NVML_ERROR_INVALID_ARGUMENT);
    /* a MIG device handle samples its instance (device 0: GPU instance 1, the 4g) */
    assert_int_equal(F(h, nvmlGpmSampleGet)(migdev(h, g0, 0), a), NVML_SUCCESS);
    F(h, gssimClockSet)(12);
    assert_int_equal(F(h, nvmlGpmSampleGet)(migdev(h, g0, 0), b), NVML_SUCCESS);
    assert_int_equal(metrics(h, a, b, ids, 1, v, each), NVML_SUCCESS);
    assert_true(fabs(v[0] - 10) < 0.01);
    /* the whole GPU: its instances weighted by compute slices */
    F(h, nvmlGpmSampleGet)(g0, a);
    F(h, gssimClockSet)(13);
    F(h, nvmlGpmSampleGet)(g0, b);
    assert_int_equal(metrics(h, a, b, ids, 3, v, each), NVML_SUCCESS);
    assert_true(fabs(v[0] - (90 * 3 + 10 * 4) / 7.0) < 0.01);
    assert_int_equal(each[2], NVML_SUCCESS);
    stop(h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mig_handles),
        cmocka_unit_test(test_mig_memory_and_processes),
        cmocka_unit_test(test_gpu_instance_api),
        cmocka_unit_test(test_compute_instances),
        cmocka_unit_test(test_layout_errors),
        cmocka_unit_test(test_gpm_support),
        cmocka_unit_test(test_gpm_metrics),
        cmocka_unit_test(test_gpm_mig),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
