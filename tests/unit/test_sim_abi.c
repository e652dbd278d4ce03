/* SPDX-License-Identifier: MIT */
/*
 * test_sim_abi.c - the NVML simulator seen the way a client sees it: dlopen()
 * "$GS_BUILD_DIR/sim/<profile>/libnvidia-ml.so.1" and check NVML's protocols
 * (init refcount, UNINITIALIZED, size negotiation, struct versions, entry sizes,
 * sentinels), symbol sets per driver profile, fault injection, the virtual
 * clock, events, spawned PIDs and call counting. Run from the repository root.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sim_dl.h"

static char tmpdir[] = "/tmp/gs-sim-abi-XXXXXX";

/* Reset the library, point it at a scenario (a name in sim/scenarios or a path)
 * with optional extra faults, a fixed clock at 0, and initialise it. */
static void *start(const char *profile, const char *scenario, const char *faults, nvmlReturn_t want)
{
    char cwd[PATH_MAX], dir[PATH_MAX + 16];
    void *h = lib(profile);
    F(h, gssimReset)();
    assert_non_null(getcwd(cwd, sizeof(cwd)));
    snprintf(dir, sizeof(dir), "%s/sim/scenarios", cwd);
    setenv("GPUSCOPE_SIM_SCENARIO_DIR", dir, 1);
    setenv("GPUSCOPE_SIM_SCENARIO", scenario, 1);
    setenv("GPUSCOPE_SIM_CLOCK", "fixed:0", 1);
    if (faults)
        setenv("GPUSCOPE_SIM_FAULTS", faults, 1);
    else
        unsetenv("GPUSCOPE_SIM_FAULTS");
    assert_int_equal(F(h, nvmlInit_v2)(), want);
    return h;
}

/* Undo every init, then forget all state (kills spawned children too). */
static void stop(void *h)
{
    for (int i = 0; i < 8; i++)
        F(h, nvmlShutdown)();
    F(h, gssimReset)();
}

/* ---- lifecycle ---------------------------------------------------------------- */

static void test_lifecycle(void **state)
{
    (void)state;
    void *h = lib("current");
    unsigned n;
    char buf[96];
    F(h, gssimReset)();
    assert_int_equal(F(h, nvmlDeviceGetCount_v2)(&n), NVML_ERROR_UNINITIALIZED);
    assert_int_equal(F(h, nvmlSystemGetDriverVersion)(buf, sizeof(buf)), NVML_ERROR_UNINITIALIZED);
    assert_int_equal(F(h, nvmlShutdown)(), NVML_SUCCESS); /* not initialised: still SUCCESS */
    start("current", "demo", NULL, NVML_SUCCESS);
    assert_int_equal(F(h, nvmlInit)(), NVML_SUCCESS);
    assert_int_equal(F(h, nvmlInitWithFlags)(0), NVML_SUCCESS);
    assert_int_equal(F(h, nvmlShutdown)(), NVML_SUCCESS);
    assert_int_equal(F(h, nvmlShutdown)(), NVML_SUCCESS);
    assert_int_equal(F(h, nvmlDeviceGetCount_v2)(&n), NVML_SUCCESS); /* one init left */
    assert_int_equal(n, 8);
    assert_string_equal(F(h, gssimScenarioName)(), "demo");
    assert_int_equal(F(h, nvmlShutdown)(), NVML_SUCCESS);
    assert_int_equal(F(h, nvmlDeviceGetCount_v2)(&n), NVML_ERROR_UNINITIALIZED);
    assert_int_equal(F(h, nvmlShutdown)(), NVML_SUCCESS);
}

static void test_error_strings(void **state)
{
    (void)state;
    void *h = lib("current");
    const char *(*es)(nvmlReturn_t) = F(h, nvmlErrorString);
    assert_string_equal(es(NVML_SUCCESS), "Success");
    assert_string_equal(es(NVML_ERROR_NO_PERMISSION), "Insufficient Permissions");
    assert_string_equal(es(NVML_ERROR_GPU_IS_LOST), "GPU is lost");
    assert_string_equal(es(NVML_ERROR_LIB_RM_VERSION_MISMATCH), "Driver/library version mismatch");
    assert_string_equal(es(NVML_ERROR_RESET_REQUIRED), "GPU requires reset");
    assert_string_equal(es(NVML_ERROR_GPU_NOT_FOUND), "Unknown Error");
    assert_string_equal(es(NVML_ERROR_UNKNOWN), "Unknown Error");
    assert_string_equal(es((nvmlReturn_t)12345), "Unknown Error");
}

static void test_nvml_version_before_init(void **state)
{
    (void)state;
    char buf[80];
    void *h = lib("current");
    F(h, gssimReset)();
    assert_int_equal(F(h, nvmlSystemGetNVMLVersion)(buf, sizeof(buf)), NVML_SUCCESS); /* R535+ */
    h = lib("r470");
    F(h, gssimReset)();
    assert_int_equal(F(h, nvmlSystemGetNVMLVersion)(buf, sizeof(buf)), NVML_ERROR_UNINITIALIZED);
}

/* ---- identity, strings, PCI ------------------------------------------------------ */

static void test_identity(void **state)
{
    (void)state;
    void *h = start("current", "demo", NULL, NVML_SUCCESS);
    char buf[96];
    int cuda, maj, min;
    nvmlDevice_t d1 = dev(h, 1), d;
    assert_int_equal(F(h, nvmlSystemGetDriverVersion)(buf, sizeof(buf)), NVML_SUCCESS);
    assert_string_equal(buf, "550.127.05");
    assert_int_equal(F(h, nvmlSystemGetDriverVersion)(buf, 5), NVML_ERROR_INSUFFICIENT_SIZE);
    assert_int_equal(F(h, nvmlSystemGetNVMLVersion)(buf, sizeof(buf)), NVML_SUCCESS);
    assert_string_equal(buf, "12.550.127.05");
    assert_int_equal(F(h, nvmlSystemGetCudaDriverVersion)(&cuda), NVML_SUCCESS);
    assert_int_equal(cuda, 12040);
    assert_int_equal(F(h, nvmlDeviceGetName)(d1, buf, sizeof(buf)), NVML_SUCCESS);
    assert_string_equal(buf, "NVIDIA H100 80GB HBM3");
    assert_int_equal(F(h, nvmlDeviceGetName)(d1, buf, 21), NVML_ERROR_INSUFFICIENT_SIZE);
    assert_int_equal(F(h, nvmlDeviceGetName)(d1, buf, 22), NVML_SUCCESS);
    assert_int_equal(F(h, nvmlDeviceGetUUID)(d1, buf, sizeof(buf)), NVML_SUCCESS);
    assert_int_equal(strlen(buf), 40);
    assert_memory_equal(buf, "GPU-", 4);
    assert_int_equal(F(h, nvmlDeviceGetHandleByUUID)(buf, &d), NVML_SUCCESS);
    assert_ptr_equal(d, d1);
    assert_int_equal(F(h, nvmlDeviceGetHandleByUUID)("GPU-nope", &d), NVML_ERROR_NOT_FOUND);
    assert_int_equal(F(h, nvmlDeviceGetHandleByIndex_v2)(8, &d), NVML_ERROR_INVALID_ARGUMENT);
    assert_int_equal(F(h, nvmlDeviceGetCudaComputeCapability)(d1, &maj, &min), NVML_SUCCESS);
    assert_true(maj == 9 && min == 0);
    nvmlPciInfo_t pci;
    assert_int_equal(F(h, nvmlDeviceGetPciInfo_v3)(d1, &pci), NVML_SUCCESS);
    assert_string_equal(pci.busId, "00000000:2A:00.0");
    assert_string_equal(pci.busIdLegacy, "0000:2A:00.0");
    assert_int_equal(pci.pciDeviceId, 0x233010DE);
    assert_int_equal(F(h, nvmlDeviceGetHandleByPciBusId_v2)("0000:2a:00.0", &d), NVML_SUCCESS);
    assert_ptr_equal(d, d1);
    assert_int_equal(F(h, nvmlDeviceGetHandleByPciBusId_v2)("2A:00.0", &d), NVML_SUCCESS);
    assert_ptr_equal(d, d1);
    assert_int_equal(F(h, nvmlDeviceGetHandleByPciBusId_v2)("0000:77:00.0", &d), NVML_ERROR_NOT_FOUND);
    /* a pointer that is not one of our handles */
    assert_int_equal(F(h, nvmlDeviceGetName)((nvmlDevice_t)buf, buf, sizeof(buf)), NVML_ERROR_INVALID_ARGUMENT);
    stop(h);
}

/* ---- memory --------------------------------------------------------------------------- */

static void test_memory_versions(void **state)
{
    (void)state;
    void *h = start("current", "demo", NULL, NVML_SUCCESS);
    nvmlDevice_t d = dev(h, 0);
    nvmlMemory_v2_t m2 = {.version = 2}; /* what nvtop passes */
    nvmlMemory_t m1;
    assert_int_equal(F(h, nvmlDeviceGetMemoryInfo_v2)(d, &m2), NVML_ERROR_FUNCTION_NOT_FOUND);
    m2.version = nvmlMemory_v2;
    assert_int_equal(F(h, nvmlDeviceGetMemoryInfo_v2)(d, &m2), NVML_SUCCESS);
    assert_int_equal(F(h, nvmlDeviceGetMemoryInfo)(d, &m1), NVML_SUCCESS);
    assert_true(m1.total == 81559ull << 20 && m2.total == m1.total);
    assert_true(m2.reserved == 579ull << 20);
    assert_true(m1.used == m2.used + m2.reserved);
    assert_true(m1.free == m2.free && m1.free + m1.used == m1.total);
    assert_true(m2.used > 30ull << 30 && m2.used < 70ull << 30);
    stop(h);
}

/* ---- NOT_SUPPORTED and sentinels ---------------------------------------------------------- */

static void test_not_supported_and_sentinels(void **state)
{
    (void)state;
    unsigned v;
    void *h = start("current", "demo", NULL, NVML_SUCCESS);
    assert_int_equal(F(h, nvmlDeviceGetFanSpeed)(dev(h, 0), &v), NVML_ERROR_NOT_SUPPORTED);
    assert_int_equal(F(h, nvmlDeviceGetPowerUsage)(dev(h, 0), &v), NVML_SUCCESS);
    assert_true(v >= 60000 && v <= 700000);
    stop(h);
    h = start("current", "minimal", NULL, NVML_SUCCESS);
    assert_int_equal(F(h, nvmlDeviceGetPowerUsage)(dev(h, 0), &v), NVML_ERROR_NOT_SUPPORTED);
    assert_int_equal(F(h, nvmlDeviceGetTemperature)(dev(h, 0), NVML_TEMPERATURE_GPU, &v), NVML_ERROR_NOT_SUPPORTED);
    stop(h);
    const char *p = sim_dl_scenario(tmpdir, "na", "gpu count=1\nproc 0 type=compute mem=na\n");
    h = start("current", p, NULL, NVML_SUCCESS);
    nvmlProcessInfo_t pi[4];
    unsigned n = 4;
    assert_int_equal(F(h, nvmlDeviceGetComputeRunningProcesses_v3)(dev(h, 0), &n, pi), NVML_SUCCESS);
    assert_int_equal(n, 1);
    assert_true(pi[0].usedGpuMemory == NVML_VALUE_NOT_AVAILABLE_ULL);
    assert_int_equal(pi[0].gpuInstanceId, NVML_VALUE_NOT_AVAILABLE_UINT);
    assert_int_equal(pi[0].computeInstanceId, NVML_VALUE_NOT_AVAILABLE_UINT);
    stop(h);
}

/* ---- processes ---------------------------------------------------------------------------------- */

typedef nvmlReturn_t (*proc_fn)(nvmlDevice_t, unsigned *, void *);

static void check_entries(void *h, const char *symbol, size_t size)
{
    unsigned char buf[16 * 40];
    unsigned n = 16;
    proc_fn fn = (proc_fn)sym(h, symbol);
    memset(buf, 0xAB, sizeof(buf));
    assert_int_equal(fn(dev(h, 0), &n, buf), NVML_SUCCESS);
    assert_int_equal(n, 8);
    for (unsigned k = 0; k < n; k++) {
        unsigned pid;
        unsigned long long mem;
        memcpy(&pid, buf + k * size, sizeof(pid));
        memcpy(&mem, buf + k * size + 8, sizeof(mem));
        assert_int_equal(pid, 101 + k);
        assert_true(mem > 6ull << 30 && mem < 8ull << 30);
    }
    assert_int_equal(buf[n * size], 0xAB); /* nothing written past the entries */
}

static void test_process_entry_sizes(void **state)
{
    (void)state;
    setenv("GPUSCOPE_SIM_PIDS", "101,102,103,104,105,106,107,108", 1);
    void *h = start("current", "bench-8x8", NULL, NVML_SUCCESS);
    check_entries(h, "nvmlDeviceGetComputeRunningProcesses", 16);
    check_entries(h, "nvmlDeviceGetComputeRunningProcesses_v2", 24);
    check_entries(h, "nvmlDeviceGetComputeRunningProcesses_v3", 24);
    stop(h);
    h = start("r535early", "bench-8x8", NULL, NVML_SUCCESS);
    check_entries(h, "nvmlDeviceGetComputeRunningProcesses_v3", 32);
    check_entries(h, "nvmlDeviceGetComputeRunningProcesses_v2", 24);
    stop(h);
    unsetenv("GPUSCOPE_SIM_PIDS");
}

static void test_process_count_negotiation(void **state)
{
    (void)state;
    void *h = start("current", "bench-8x8", NULL, NVML_SUCCESS);
    nvmlProcessInfo_t pi[20];
    unsigned n = 0;
    nvmlDevice_t d = dev(h, 3);
    assert_int_equal(F(h, nvmlDeviceGetComputeRunningProcesses_v3)(d, &n, NULL), NVML_ERROR_INSUFFICIENT_SIZE);
    assert_int_equal(n, 8);
    n = 4;
    assert_int_equal(F(h, nvmlDeviceGetComputeRunningProcesses_v3)(d, &n, pi), NVML_ERROR_INSUFFICIENT_SIZE);
    assert_int_equal(n, 8);
    n = 20;
    assert_int_equal(F(h, nvmlDeviceGetComputeRunningProcesses_v3)(d, &n, pi), NVML_SUCCESS);
    assert_int_equal(n, 8);
    n = 0;
    assert_int_equal(F(h, nvmlDeviceGetGraphicsRunningProcesses_v3)(d, &n, NULL), NVML_SUCCESS);
    assert_int_equal(n, 0);
    assert_int_equal(F(h, nvmlDeviceGetComputeRunningProcesses_v3)(d, NULL, pi), NVML_ERROR_INVALID_ARGUMENT);
    stop(h);
}

static void test_process_list_grows(void **state)
{
    (void)state;
    void *h = start("current", "race", NULL, NVML_SUCCESS);
    nvmlProcessInfo_t pi[8];
    unsigned n = 0;
    nvmlDevice_t d = dev(h, 0);
    assert_int_equal(F(h, nvmlDeviceGetComputeRunningProcesses_v3)(d, &n, NULL), NVML_ERROR_INSUFFICIENT_SIZE);
    assert_int_equal(n, 3);
    assert_int_equal(F(h, nvmlDeviceGetComputeRunningProcesses_v3)(d, &n, pi), NVML_ERROR_INSUFFICIENT_SIZE);
    assert_int_equal(n, 5);
    assert_int_equal(F(h, nvmlDeviceGetComputeRunningProcesses_v3)(d, &n, pi), NVML_SUCCESS);
    assert_int_equal(n, 5);
    stop(h);
}

static void test_detail_list(void **state)
{
    (void)state;
    void *h = start("current", "workstation", NULL, NVML_SUCCESS);
    F(h, gssimClockSet)(20);
    nvmlProcessDetail_v1_t arr[8];
    nvmlProcessDetailList_v1_t l = {.version = 1, .mode = 1};
    assert_int_equal(F(h, nvmlDeviceGetRunningProcessDetailList)(dev(h, 0), &l), NVML_ERROR_ARGUMENT_VERSION_MISMATCH);
    l.version = nvmlProcessDetailList_v1;
    assert_int_equal(F(h, nvmlDeviceGetRunningProcessDetailList)(dev(h, 0), &l), NVML_ERROR_INSUFFICIENT_SIZE);
    assert_int_equal(l.numProcArrayEntries, 4); /* Xorg, gnome-shell, firefox, the webui */
    l.procArray = arr;
    l.numProcArrayEntries = 8;
    assert_int_equal(F(h, nvmlDeviceGetRunningProcessDetailList)(dev(h, 0), &l), NVML_SUCCESS);
    assert_int_equal(l.numProcArrayEntries, 4);
    F(h, gssimClockSet)(70); /* the compute job has exited */
    l.numProcArrayEntries = 8;
    assert_int_equal(F(h, nvmlDeviceGetRunningProcessDetailList)(dev(h, 0), &l), NVML_SUCCESS);
    assert_int_equal(l.numProcArrayEntries, 3);
    stop(h);
}

static void test_process_utilization_and_samples(void **state)
{
    (void)state;
    void *h = start("current", "demo", NULL, NVML_SUCCESS);
    F(h, gssimClockSet)(30);
    nvmlDevice_t d = dev(h, 0);
    nvmlProcessUtilizationSample_t s[8];
    unsigned n = 0;
    assert_int_equal(F(h, nvmlDeviceGetProcessUtilization)(d, NULL, &n, 0), NVML_ERROR_INSUFFICIENT_SIZE);
    assert_int_equal(n, 1); /* the training rank; the idle notebook has no sample */
    n = 8;
    assert_int_equal(F(h, nvmlDeviceGetProcessUtilization)(d, s, &n, 0), NVML_SUCCESS);
    assert_int_equal(n, 1);
    assert_true(s[0].smUtil > 50 && s[0].smUtil <= 100);
    assert_true(s[0].timeStamp > 1600000000ull * 1000000ull);
    n = 8;
    assert_int_equal(F(h, nvmlDeviceGetProcessUtilization)(d, s, &n, s[0].timeStamp), NVML_ERROR_NOT_FOUND);

    nvmlValueType_t vt;
    nvmlSample_t smp[32];
    n = 0;
    assert_int_equal(F(h, nvmlDeviceGetSamples)(d, NVML_GPU_UTILIZATION_SAMPLES, 0, &vt, &n, NULL), NVML_SUCCESS);
    assert_true(n > 0 && n <= 32);
    assert_int_equal(F(h, nvmlDeviceGetSamples)(d, NVML_GPU_UTILIZATION_SAMPLES, 0, &vt, &n, smp), NVML_SUCCESS);
    assert_int_equal(vt, NVML_VALUE_TYPE_UNSIGNED_INT);
    assert_true(smp[n - 1].sampleValue.uiVal <= 100);
    unsigned long long last = smp[n - 1].timeStamp;
    assert_int_equal(F(h, nvmlDeviceGetSamples)(d, NVML_GPU_UTILIZATION_SAMPLES, last, &vt, &n, smp),
                     NVML_ERROR_NOT_FOUND);

    nvmlProcessesUtilizationInfo_v1_t info = {.version = 0x01000017u};
    assert_int_equal(F(h, nvmlDeviceGetProcessesUtilizationInfo)(d, &info), NVML_ERROR_ARGUMENT_VERSION_MISMATCH);
    info.version = nvmlProcessesUtilizationInfo_v1;
    assert_int_equal(F(h, nvmlDeviceGetProcessesUtilizationInfo)(d, &info), NVML_ERROR_INSUFFICIENT_SIZE);
    assert_int_equal(info.processSamplesCount, 1);
    stop(h);
}

/* ---- faults --------------------------------------------------------------------------------------- */

static double mono_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void test_fault_injection(void **state)
{
    (void)state;
    unsigned v;
    void *h = start("current", "demo",
                    "nvmlDeviceGetPowerUsage gpu=1 call=2 error=GPU_IS_LOST;"
                    "nvmlDeviceGetTemperature call=2 error=UNKNOWN persist;"
                    "nvmlDeviceGetPcieThroughput gpu=0 delay=30",
                    NVML_SUCCESS);
    nvmlDevice_t d0 = dev(h, 0), d1 = dev(h, 1);
    assert_int_equal(F(h, nvmlDeviceGetPowerUsage)(d1, &v), NVML_SUCCESS);
    assert_int_equal(F(h, nvmlDeviceGetPowerUsage)(d0, &v), NVML_SUCCESS); /* other GPU not counted */
    assert_int_equal(F(h, nvmlDeviceGetPowerUsage)(d1, &v), NVML_ERROR_GPU_IS_LOST);
    assert_int_equal(F(h, nvmlDeviceGetPowerUsage)(d1, &v), NVML_SUCCESS); /* once */
    assert_int_equal(F(h, nvmlDeviceGetTemperature)(d0, NVML_TEMPERATURE_GPU, &v), NVML_SUCCESS);
    assert_int_equal(F(h, nvmlDeviceGetTemperature)(d1, NVML_TEMPERATURE_GPU, &v), NVML_ERROR_UNKNOWN);
    assert_int_equal(F(h, nvmlDeviceGetTemperature)(d0, NVML_TEMPERATURE_GPU, &v), NVML_ERROR_UNKNOWN);
    double t0 = mono_ms();
    assert_int_equal(F(h, nvmlDeviceGetPcieThroughput)(d0, NVML_PCIE_UTIL_TX_BYTES, &v), NVML_SUCCESS);
    assert_true(mono_ms() - t0 >= 29.0);
    t0 = mono_ms();
    assert_int_equal(F(h, nvmlDeviceGetPcieThroughput)(d0, NVML_PCIE_UTIL_TX_BYTES, &v), NVML_SUCCESS);
    assert_true(mono_ms() - t0 < 25.0);
    stop(h);
}

static void test_init_faults(void **state)
{
    (void)state;
    void *h = start("current", "nodriver", NULL, NVML_ERROR_DRIVER_NOT_LOADED);
    assert_int_equal(F(h, nvmlInitWithFlags)(NVML_INIT_FLAG_NO_GPUS), NVML_ERROR_DRIVER_NOT_LOADED);
    assert_int_equal(F(h, nvmlInit)(), NVML_ERROR_DRIVER_NOT_LOADED);
    assert_int_equal(F(h, nvmlShutdown)(), NVML_SUCCESS);
    start("current", "mismatch", NULL, NVML_ERROR_LIB_RM_VERSION_MISMATCH);
    start("current", sim_dl_scenario(tmpdir, "bad", "gpu count=2\ngpu 1 util=oops(\n"), NULL, NVML_ERROR_UNKNOWN);
    start("current", "no-such-scenario", NULL, NVML_ERROR_UNKNOWN);
    start("current", "demo", "nvmlInit_v2 error=DRIVER_NOT_LOADED", NVML_ERROR_DRIVER_NOT_LOADED);
    assert_int_equal(F(h, nvmlInit_v2)(), NVML_SUCCESS); /* once: the retry works */
    stop(h);
    h = start("current", "nogpu", NULL, NVML_SUCCESS);
    unsigned n = 9;
    assert_int_equal(F(h, nvmlDeviceGetCount_v2)(&n), NVML_SUCCESS);
    assert_int_equal(n, 0);
    stop(h);
}

static void test_no_permission(void **state)
{
    (void)state;
    void *h = start("current", "noperm", NULL, NVML_SUCCESS);
    unsigned n;
    nvmlDevice_t d;
    nvmlPciInfo_t pci;
    assert_int_equal(F(h, nvmlDeviceGetCount_v2)(&n), NVML_SUCCESS);
    assert_int_equal(n, 2);
    assert_int_equal(F(h, nvmlDeviceGetCount)(&n), NVML_SUCCESS);
    assert_int_equal(n, 1);
    assert_int_equal(F(h, nvmlDeviceGetHandleByIndex_v2)(1, &d), NVML_ERROR_NO_PERMISSION);
    assert_int_equal(F(h, nvmlDeviceGetHandleByIndex)(1, &d), NVML_ERROR_INVALID_ARGUMENT);
    assert_int_equal(F(h, nvmlDeviceGetPciInfo_v3)(dev(h, 0), &pci), NVML_SUCCESS);
    assert_int_equal(F(h, nvmlDeviceGetHandleByPciBusId_v2)("00000000:2A:00.0", &d), NVML_ERROR_NO_PERMISSION);
    assert_int_equal(F(h, nvmlDeviceGetHandleByPciBusId)("00000000:2A:00.0", &d), NVML_ERROR_NOT_FOUND);
    stop(h);
}

/* ---- time ---------------------------------------------------------------------------------------------- */

static void test_virtual_clock_and_lost_gpu(void **state)
{
    (void)state;
    unsigned v;
    char name[96];
    void *h = start("current", "xid79", NULL, NVML_SUCCESS);
    nvmlDevice_t d2 = dev(h, 2), d;
    F(h, gssimClockSet)(4.0);
    assert_int_equal(F(h, nvmlDeviceGetPowerUsage)(d2, &v), NVML_SUCCESS);
    F(h, gssimClockStep)(2.0);
    assert_int_equal(F(h, nvmlDeviceGetPowerUsage)(d2, &v), NVML_ERROR_GPU_IS_LOST);
    assert_int_equal(F(h, nvmlDeviceGetName)(d2, name, sizeof(name)), NVML_ERROR_GPU_IS_LOST);
    assert_int_equal(F(h, nvmlDeviceGetHandleByIndex_v2)(2, &d), NVML_ERROR_GPU_IS_LOST);
    assert_int_equal(F(h, nvmlDeviceGetPowerUsage)(dev(h, 3), &v), NVML_SUCCESS);
    F(h, gssimClockSet)(1.0); /* lost stays lost */
    assert_int_equal(F(h, nvmlDeviceGetPowerUsage)(d2, &v), NVML_ERROR_GPU_IS_LOST);
    stop(h);
}

static void test_time_functions(void **state)
{
    (void)state;
    void *h = start("current", "leak", NULL, NVML_SUCCESS);
    nvmlProcessInfo_t pi[4];
    unsigned n = 4;
    unsigned long long e1, e2;
    nvmlDevice_t d = dev(h, 0);
    F(h, gssimClockSet)(10);
    assert_int_equal(F(h, nvmlDeviceGetComputeRunningProcesses_v3)(d, &n, pi), NVML_SUCCESS);
    unsigned long long m10 = pi[0].usedGpuMemory;
    F(h, gssimClockSet)(20);
    n = 4;
    assert_int_equal(F(h, nvmlDeviceGetComputeRunningProcesses_v3)(d, &n, pi), NVML_SUCCESS);
    assert_true(pi[0].usedGpuMemory - m10 == 200ull << 20); /* 20 MiB/s */
    assert_int_equal(F(h, nvmlDeviceGetTotalEnergyConsumption)(d, &e1), NVML_SUCCESS);
    F(h, gssimClockStep)(10);
    assert_int_equal(F(h, nvmlDeviceGetTotalEnergyConsumption)(d, &e2), NVML_SUCCESS);
    assert_true(e2 - e1 > 10 * 40000 && e2 - e1 < 10 * 250000); /* 10 s at 40..250 W, in mJ */
    stop(h);
    h = start("current", "thermal", NULL, NVML_SUCCESS);
    unsigned long long reasons;
    F(h, gssimClockSet)(10);
    assert_int_equal(F(h, nvmlDeviceGetCurrentClocksEventReasons)(dev(h, 0), &reasons), NVML_SUCCESS);
    assert_true(reasons == 0);
    F(h, gssimClockSet)(40);
    assert_int_equal(F(h, nvmlDeviceGetCurrentClocksThrottleReasons)(dev(h, 0), &reasons), NVML_SUCCESS);
    assert_true(reasons == (0x20 | 0x40 | 0x8));
    F(h, gssimClockSet)(120);
    assert_int_equal(F(h, nvmlDeviceGetCurrentClocksEventReasons)(dev(h, 0), &reasons), NVML_SUCCESS);
    assert_true(reasons == 0);
    stop(h);
}

static void test_clock_modes(void **state)
{
    (void)state;
    char path[PATH_MAX];
    unsigned n;
    nvmlProcessInfo_t pi[4];
    snprintf(path, sizeof(path), "%s/clock", tmpdir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("10\n", f);
    fclose(f);
    void *h = lib("current");
    F(h, gssimReset)();
    char env[PATH_MAX + 8];
    snprintf(env, sizeof(env), "file:%s", path);
    start("current", "leak", NULL, NVML_SUCCESS); /* fixed:0 */
    stop(h);
    setenv("GPUSCOPE_SIM_CLOCK", env, 1);
    assert_int_equal(F(h, nvmlInit_v2)(), NVML_SUCCESS);
    n = 4;
    assert_int_equal(F(h, nvmlDeviceGetComputeRunningProcesses_v3)(dev(h, 0), &n, pi), NVML_SUCCESS);
    unsigned long long m10 = pi[0].usedGpuMemory;
    f = fopen(path, "w");
    assert_non_null(f);
    fputs("15.0", f);
    fclose(f);
    n = 4;
    assert_int_equal(F(h, nvmlDeviceGetComputeRunningProcesses_v3)(dev(h, 0), &n, pi), NVML_SUCCESS);
    assert_true(pi[0].usedGpuMemory - m10 == 100ull << 20);
    stop(h);
    setenv("GPUSCOPE_SIM_CLOCK", "sometimes", 1);
    assert_int_equal(F(h, nvmlInit_v2)(), NVML_ERROR_UNKNOWN);
    setenv("GPUSCOPE_SIM_CLOCK", "fixed:0", 1);
}

/* ---- events ---------------------------------------------------------------------------------------------- */

static void test_xid_events(void **state)
{
    (void)state;
    void *h = start("current", "xid79", NULL, NVML_SUCCESS);
    nvmlDevice_t d2 = dev(h, 2);
    nvmlEventSet_t set;
    nvmlEventData_t ev;
    unsigned long long types;
    F(h, gssimClockSet)(0);
    assert_int_equal(F(h, nvmlEventSetCreate)(&set), NVML_SUCCESS);
    assert_int_equal(F(h, nvmlDeviceGetSupportedEventTypes)(d2, &types), NVML_SUCCESS);
    assert_true(types & NVML_EVENT_TYPE_XID_CRITICAL);
    assert_int_equal(F(h, nvmlDeviceRegisterEvents)(d2, NVML_EVENT_TYPE_XID_CRITICAL, set), NVML_SUCCESS);
    assert_int_equal(F(h, nvmlDeviceRegisterEvents)(d2, 1ull << 40, set), NVML_ERROR_NOT_SUPPORTED);
    assert_int_equal(F(h, nvmlEventSetWait_v2)(set, &ev, 0), NVML_ERROR_TIMEOUT);
    assert_int_equal(F(h, gssimXidCount)(2), 0);
    F(h, gssimClockSet)(5.5);
    assert_int_equal(F(h, gssimXidCount)(2), 1);
    memset(&ev, 0x5A, sizeof(ev));
    assert_int_equal(F(h, nvmlEventSetWait_v2)(set, &ev, 100), NVML_SUCCESS);
    assert_ptr_equal(ev.device, d2);
    assert_true(ev.eventType == NVML_EVENT_TYPE_XID_CRITICAL && ev.eventData == 79);
    assert_int_equal(ev.gpuInstanceId, 0xFFFFFFFFu);
    assert_int_equal(F(h, nvmlEventSetWait_v2)(set, &ev, 0), NVML_ERROR_TIMEOUT);
    assert_int_equal(F(h, nvmlEventSetFree)(set), NVML_SUCCESS);
    stop(h);
    /* the legacy wait fills only the pre-MIG 24 bytes */
    h = start("current", "xid79", NULL, NVML_SUCCESS);
    assert_int_equal(F(h, nvmlEventSetCreate)(&set), NVML_SUCCESS);
    assert_int_equal(F(h, nvmlDeviceRegisterEvents)(dev(h, 2), NVML_EVENT_TYPE_XID_CRITICAL, set), NVML_SUCCESS);
    F(h, gssimClockSet)(5.5);
    memset(&ev, 0x5A, sizeof(ev));
    assert_int_equal(F(h, nvmlEventSetWait)(set, &ev, 0), NVML_SUCCESS);
    assert_true(ev.eventData == 79 && ev.gpuInstanceId == 0x5A5A5A5Au);
    stop(h);
}

/* ---- counting, stats, threads --------------------------------------------------------------------------- */

static void test_call_counting_and_stats(void **state)
{
    (void)state;
    char path[PATH_MAX], line[256];
    snprintf(path, sizeof(path), "%s/stats.txt", tmpdir);
    setenv("GPUSCOPE_SIM_STATS", path, 1);
    void *h = start("current", "demo", NULL, NVML_SUCCESS);
    unsigned n;
    unsigned long long before = F(h, gssimCallCount)("nvmlDeviceGetCount_v2");
    for (int i = 0; i < 5; i++)
        F(h, nvmlDeviceGetCount_v2)(&n);
    assert_int_equal(F(h, gssimCallCount)("nvmlDeviceGetCount_v2") - before, 5);
    assert_int_equal(F(h, gssimCallCount)("nvmlNoSuchFunction"), 0);
    assert_int_equal(F(h, nvmlShutdown)(), NVML_SUCCESS);
    unsetenv("GPUSCOPE_SIM_STATS");
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    int found = 0, lines = 0;
    while (fgets(line, sizeof(line), f)) {
        lines++;
        if (strcmp(line, "nvmlDeviceGetCount_v2 5\n") == 0)
            found = 1;
    }
    fclose(f);
    assert_true(found);
    assert_true(lines > 100); /* one line per exported NVML function */
}

struct hammer {
    void *h;
    int errors;
};

static void *hammer_thread(void *arg)
{
    struct hammer *hm = arg;
    for (int i = 0; i < 2000; i++) {
        nvmlDevice_t d;
        unsigned v, n = 64;
        nvmlProcessInfo_t pi[64];
        if (F(hm->h, nvmlDeviceGetHandleByIndex_v2)((unsigned)i % 8, &d) != NVML_SUCCESS ||
            F(hm->h, nvmlDeviceGetPowerUsage)(d, &v) != NVML_SUCCESS ||
            F(hm->h, nvmlDeviceGetComputeRunningProcesses_v3)(d, &n, pi) != NVML_SUCCESS)
            hm->errors++;
    }
    return NULL;
}

static void test_threads(void **state)
{
    (void)state;
    pthread_t th[8];
    struct hammer hm[8];
    void *h = start("current", "bench-8x8", NULL, NVML_SUCCESS);
    unsigned long long before = F(h, gssimCallCount)("nvmlDeviceGetPowerUsage");
    for (int i = 0; i < 8; i++) {
        hm[i] = (struct hammer){h, 0};
        pthread_create(&th[i], NULL, hammer_thread, &hm[i]);
    }
    for (int i = 0; i < 8; i++) {
        pthread_join(th[i], NULL);
        assert_int_equal(hm[i].errors, 0);
    }
    assert_int_equal(F(h, gssimCallCount)("nvmlDeviceGetPowerUsage") - before, 8 * 2000);
    stop(h);
}

/* ---- spawned and vanishing PIDs -------------------------------------------------------------------------- */

static void test_spawn_and_vanish(void **state)
{
    (void)state;
    void *h = start("current", "vanish", NULL, NVML_SUCCESS);
    nvmlProcessInfo_t pi[8];
    unsigned n = 8;
    char name[64];
    assert_int_equal(F(h, nvmlDeviceGetComputeRunningProcesses_v3)(dev(h, 0), &n, pi), NVML_SUCCESS);
    assert_int_equal(n, 3);
    pid_t child = (pid_t)pi[0].pid;
    assert_true(child > 0 && child != getpid());
    assert_int_equal(kill(child, 0), 0);
    assert_int_equal(pi[2].pid, (unsigned)getpid());
    assert_int_equal(F(h, nvmlSystemGetProcessName)((unsigned)getpid(), name, sizeof(name)), NVML_SUCCESS);
    assert_int_equal(F(h, nvmlSystemGetProcessName)(3999999, name, sizeof(name)), NVML_SUCCESS);
    assert_string_equal(name, "python ghost.py");
    assert_int_equal(F(h, nvmlSystemGetProcessName)(3999999, name, 4), NVML_ERROR_INSUFFICIENT_SIZE);
    F(h, gssimClockSet)(4);
    n = 8;
    assert_int_equal(F(h, nvmlDeviceGetComputeRunningProcesses_v3)(dev(h, 0), &n, pi), NVML_SUCCESS);
    assert_int_equal(n, 3); /* still listed ... */
    assert_int_equal(kill(child, 0), -1); /* ... but gone */
    assert_int_equal(errno, ESRCH);
    assert_int_equal(F(h, nvmlSystemGetProcessName)((unsigned)child, name, sizeof(name)), NVML_ERROR_NOT_FOUND);
    stop(h);
}

static void test_spawned_child_killed_at_shutdown(void **state)
{
    (void)state;
    void *h = start("current", "vanish", NULL, NVML_SUCCESS);
    nvmlProcessInfo_t pi[8];
    unsigned n = 8;
    assert_int_equal(F(h, nvmlDeviceGetComputeRunningProcesses_v3)(dev(h, 0), &n, pi), NVML_SUCCESS);
    pid_t child = (pid_t)pi[0].pid;
    assert_int_equal(kill(child, 0), 0);
    assert_int_equal(F(h, nvmlShutdown)(), NVML_SUCCESS);
    assert_int_equal(kill(child, 0), -1);
}

/* ---- driver profiles ------------------------------------------------------------------------------------- */

static int has(const char *profile, const char *name)
{
    return dlsym(lib(profile), name) != NULL;
}

static void test_profile_symbols(void **state)
{
    (void)state;
    for (size_t i = 0; i < SIM_NPROFILES; i++) {
        const char *p = sim_profiles[i];
        assert_true(has(p, "nvmlInit_v2") && has(p, "nvmlInitWithFlags") && has(p, "nvmlErrorString"));
        assert_true(has(p, "nvmlDeviceGetComputeRunningProcesses") && has(p, "nvmlDeviceGetComputeRunningProcesses_v2"));
        assert_true(has(p, "gssimVersion") && has(p, "gssimCallCount") && has(p, "gssimClockSet"));
        assert_false(has(p, "gs_scn_parse_buf")); /* internals stay local */
        assert_false(has(p, "gs_sim_begin"));
    }
    assert_true(has("current", "nvmlDeviceGetTemperatureV") && has("current", "nvmlDeviceGetPciInfoExt"));
    assert_true(has("current", "nvmlDeviceGetProcessesUtilizationInfo"));
    assert_false(has("r535", "nvmlDeviceGetTemperatureV") || has("r535", "nvmlDeviceGetPciInfoExt") ||
                 has("r535", "nvmlDeviceGetProcessesUtilizationInfo"));
    assert_true(has("r535", "nvmlDeviceGetRunningProcessDetailList") && has("r535", "nvmlDeviceGetConfComputeMemSizeInfo"));
    assert_true(has("r535early", "nvmlDeviceGetConfComputeMemSizeInfo"));
    assert_false(has("r535early", "nvmlDeviceGetRunningProcessDetailList"));
    assert_false(has("r525", "nvmlDeviceGetRunningProcessDetailList") ||
                 has("r525", "nvmlDeviceGetCurrentClocksEventReasons"));
    assert_true(has("r525", "nvmlDeviceGetCurrentClocksThrottleReasons") && has("r525", "nvmlDeviceGetMemoryInfo_v2"));
    assert_false(has("r470", "nvmlDeviceGetComputeRunningProcesses_v3") || has("r470", "nvmlDeviceGetMemoryInfo_v2") ||
                 has("r470", "nvmlDeviceGetNumFans"));
    assert_string_equal(((const char *(*)(void))sym(lib("r470"), "gssimVersion"))(), "gpuscope-sim 1.0");
}

static int setup(void **state)
{
    (void)state;
    return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
    char cmd[PATH_MAX + 16];
    (void)state;
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
    return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lifecycle),
        cmocka_unit_test(test_error_strings),
        cmocka_unit_test(test_nvml_version_before_init),
        cmocka_unit_test(test_identity),
        cmocka_unit_test(test_memory_versions),
        cmocka_unit_test(test_not_supported_and_sentinels),
        cmocka_unit_test(test_process_entry_sizes),
        cmocka_unit_test(test_process_count_negotiation),
        cmocka_unit_test(test_process_list_grows),
        cmocka_unit_test(test_detail_list),
        cmocka_unit_test(test_process_utilization_and_samples),
        cmocka_unit_test(test_fault_injection),
        cmocka_unit_test(test_init_faults),
        cmocka_unit_test(test_no_permission),
        cmocka_unit_test(test_virtual_clock_and_lost_gpu),
        cmocka_unit_test(test_time_functions),
        cmocka_unit_test(test_clock_modes),
        cmocka_unit_test(test_xid_events),
        cmocka_unit_test(test_call_counting_and_stats),
        cmocka_unit_test(test_threads),
        cmocka_unit_test(test_spawn_and_vanish),
        cmocka_unit_test(test_spawned_child_killed_at_shutdown),
        cmocka_unit_test(test_profile_symbols),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
