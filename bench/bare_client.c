/* SPDX-License-Identifier: MIT */
/*
 * bare_client.c - the floor for one-shot queries (issue 11): a plain NVML
 * client that does what `gpuscope query --format json` asks NVML for, once,
 * and prints it as "key value" text, with nothing else: no /proc, no
 * options, no error explanations, no JSON library. It only links libc and
 * libdl (bench/oneshot.sh runs it alternately with gpuscope's one-shot
 * outputs). Uses the project's NVML ABI header for the struct layouts.
 *
 *   bare_client            (library: $GPUSCOPE_NVML_LIB, else libnvidia-ml.so.1)
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/nvidia/nvml_abi.h"

typedef nvmlReturn_t (*fn_u)(nvmlDevice_t, unsigned *);
typedef nvmlReturn_t (*fn_ull)(nvmlDevice_t, unsigned long long *);
typedef nvmlReturn_t (*fn_s)(nvmlDevice_t, char *, unsigned);
typedef nvmlReturn_t (*fn_ui)(nvmlDevice_t, unsigned, unsigned *);
typedef nvmlReturn_t (*fn_uu)(nvmlDevice_t, unsigned *, unsigned *);
typedef nvmlReturn_t (*fn_ptr)(nvmlDevice_t, void *);
typedef nvmlReturn_t (*fn_procs)(nvmlDevice_t, unsigned *, nvmlProcessInfo_v2_t *);

static void *lib;

static void *sym(const char *name)
{
    return dlsym(lib, name);
}

#define CALL(type, name, ...) (sym(name) ? ((type)sym(name))(__VA_ARGS__) : NVML_ERROR_FUNCTION_NOT_FOUND)

static void put_u(const char *k, nvmlReturn_t r, unsigned long long v)
{
    if (r == NVML_SUCCESS)
        printf("%s %llu\n", k, v);
    else
        printf("%s error %d\n", k, (int)r);
}

static void u(nvmlDevice_t d, const char *fn, const char *k)
{
    unsigned v = 0;
    put_u(k, CALL(fn_u, fn, d, &v), v);
}

static void ull(nvmlDevice_t d, const char *fn, const char *k)
{
    unsigned long long v = 0;
    put_u(k, CALL(fn_ull, fn, d, &v), v);
}

static void str(nvmlDevice_t d, const char *fn, const char *k)
{
    char b[96] = "";
    nvmlReturn_t r = CALL(fn_s, fn, d, b, sizeof(b));
    printf("%s %s\n", k, r == NVML_SUCCESS ? b : "error");
}

static void arg(nvmlDevice_t d, const char *fn, unsigned a, const char *k)
{
    unsigned v = 0;
    put_u(k, CALL(fn_ui, fn, d, a, &v), v);
}

static void identity(nvmlDevice_t d)
{
    nvmlPciInfo_t pci;
    int ma = 0, mi = 0;

    str(d, "nvmlDeviceGetName", "name");
    str(d, "nvmlDeviceGetUUID", "uuid");
    str(d, "nvmlDeviceGetSerial", "serial");
    str(d, "nvmlDeviceGetVbiosVersion", "vbios");
    memset(&pci, 0, sizeof(pci));
    if (CALL(fn_ptr, "nvmlDeviceGetPciInfo_v3", d, &pci) == NVML_SUCCESS)
        printf("pci %s %08x %08x\n", pci.busId, pci.pciDeviceId, pci.pciSubSystemId);
    u(d, "nvmlDeviceGetBoardId", "board_id");
    u(d, "nvmlDeviceGetArchitecture", "arch");
    u(d, "nvmlDeviceGetBrand", "brand");
    u(d, "nvmlDeviceGetMinorNumber", "minor");
    if (sym("nvmlDeviceGetCudaComputeCapability") &&
        ((nvmlReturn_t(*)(nvmlDevice_t, int *, int *))sym("nvmlDeviceGetCudaComputeCapability"))(d, &ma, &mi) == NVML_SUCCESS)
        printf("cc %d.%d\n", ma, mi);
}

static void limits(nvmlDevice_t d)
{
    unsigned lo = 0, hi = 0;
    static const char *const thr[] = { "temp_shutdown", "temp_slowdown", "temp_mem_max", "temp_gpu_max" };

    for (unsigned i = 0; i < 4; i++)
        arg(d, "nvmlDeviceGetTemperatureThreshold", i, thr[i]);
    u(d, "nvmlDeviceGetPowerManagementDefaultLimit", "power_default");
    put_u("power_min", CALL(fn_uu, "nvmlDeviceGetPowerManagementLimitConstraints", d, &lo, &hi), lo);
    printf("power_max %u\n", hi);
    for (unsigned c = 0; c < 4; c++)
        arg(d, "nvmlDeviceGetMaxClockInfo", c, "clock_max");
    u(d, "nvmlDeviceGetMaxPcieLinkGeneration", "pcie_max_gen");
    u(d, "nvmlDeviceGetGpuMaxPcieLinkGeneration", "pcie_gpu_max_gen");
    u(d, "nvmlDeviceGetMaxPcieLinkWidth", "pcie_max_width");
    u(d, "nvmlDeviceGetNumFans", "fans");
    ull(d, "nvmlDeviceGetSupportedClocksEventReasons", "throttle_supported");
}

static void memory(nvmlDevice_t d)
{
    nvmlMemory_v2_t m;
    nvmlBAR1Memory_t b;
    nvmlUtilization_t ut;
    unsigned v = 0, p = 0;

    memset(&m, 0, sizeof(m));
    m.version = nvmlMemory_v2;
    if (CALL(fn_ptr, "nvmlDeviceGetMemoryInfo_v2", d, &m) == NVML_SUCCESS)
        printf("memory %llu %llu %llu %llu\n", m.total, m.reserved, m.used, m.free);
    memset(&b, 0, sizeof(b));
    if (CALL(fn_ptr, "nvmlDeviceGetBAR1MemoryInfo", d, &b) == NVML_SUCCESS)
        printf("bar1 %llu %llu %llu\n", b.bar1Total, b.bar1Used, b.bar1Free);
    memset(&ut, 0, sizeof(ut));
    if (CALL(fn_ptr, "nvmlDeviceGetUtilizationRates", d, &ut) == NVML_SUCCESS)
        printf("util %u %u\n", ut.gpu, ut.memory);
    put_u("enc", CALL(fn_uu, "nvmlDeviceGetEncoderUtilization", d, &v, &p), v);
    put_u("dec", CALL(fn_uu, "nvmlDeviceGetDecoderUtilization", d, &v, &p), v);
}

static void thermal_power(nvmlDevice_t d)
{
    nvmlTemperature_v1_t t = { nvmlTemperature_v1, NVML_TEMPERATURE_GPU, 0 };
    nvmlFieldValue_t fv[2];

    put_u("temp", CALL(fn_ptr, "nvmlDeviceGetTemperatureV", d, &t), (unsigned long long)t.temperature);
    memset(fv, 0, sizeof(fv));
    fv[0].fieldId = NVML_FI_DEV_MEMORY_TEMP;
    fv[1].fieldId = NVML_FI_DEV_TOTAL_ENERGY_CONSUMPTION;
    if (sym("nvmlDeviceGetFieldValues") &&
        ((nvmlReturn_t(*)(nvmlDevice_t, int, nvmlFieldValue_t *))sym("nvmlDeviceGetFieldValues"))(d, 2, fv) == NVML_SUCCESS)
        printf("temp_mem %u\nenergy %llu\n", fv[0].value.uiVal, fv[1].value.ullVal);
    u(d, "nvmlDeviceGetPowerUsage", "power");
    u(d, "nvmlDeviceGetPowerManagementLimit", "power_limit");
    u(d, "nvmlDeviceGetEnforcedPowerLimit", "power_enforced");
    for (unsigned c = 0; c < 4; c++)
        arg(d, "nvmlDeviceGetClockInfo", c, "clock");
    u(d, "nvmlDeviceGetPerformanceState", "pstate");
    ull(d, "nvmlDeviceGetCurrentClocksEventReasons", "throttle");
    u(d, "nvmlDeviceGetCurrPcieLinkGeneration", "pcie_gen");
    u(d, "nvmlDeviceGetCurrPcieLinkWidth", "pcie_width");
    u(d, "nvmlDeviceGetPcieReplayCounter", "pcie_replay");
}

static void health(nvmlDevice_t d)
{
    unsigned a = 0, b = 0, c = 0, e = 0;
    unsigned long long n = 0;

    put_u("ecc_mode", CALL(fn_uu, "nvmlDeviceGetEccMode", d, &a, &b), a);
    for (unsigned k = 0; k < 4; k++) {
        nvmlReturn_t r = sym("nvmlDeviceGetTotalEccErrors")
                             ? ((nvmlReturn_t(*)(nvmlDevice_t, unsigned, unsigned, unsigned long long *))sym(
                                   "nvmlDeviceGetTotalEccErrors"))(d, k & 1, k >> 1, &n)
                             : NVML_ERROR_FUNCTION_NOT_FOUND;
        put_u("ecc", r, n);
    }
    for (unsigned cause = 0; cause < 2; cause++) {
        unsigned cnt = 0;
        nvmlReturn_t r = sym("nvmlDeviceGetRetiredPages")
                             ? ((nvmlReturn_t(*)(nvmlDevice_t, unsigned, unsigned *, void *))sym(
                                   "nvmlDeviceGetRetiredPages"))(d, cause, &cnt, NULL)
                             : NVML_ERROR_FUNCTION_NOT_FOUND;
        put_u("retired", r == NVML_ERROR_INSUFFICIENT_SIZE ? NVML_SUCCESS : r, cnt);
    }
    u(d, "nvmlDeviceGetRetiredPagesPendingStatus", "retired_pending");
    if (sym("nvmlDeviceGetRemappedRows") &&
        ((nvmlReturn_t(*)(nvmlDevice_t, unsigned *, unsigned *, unsigned *, unsigned *))sym(
            "nvmlDeviceGetRemappedRows"))(d, &a, &b, &c, &e) == NVML_SUCCESS)
        printf("remap %u %u %u %u\n", a, b, c, e);
    u(d, "nvmlDeviceGetPersistenceMode", "persistence");
    u(d, "nvmlDeviceGetComputeMode", "compute_mode");
    put_u("mig", CALL(fn_uu, "nvmlDeviceGetMigMode", d, &a, &b), a);
    u(d, "nvmlDeviceGetDisplayActive", "display_active");
    u(d, "nvmlDeviceGetDisplayMode", "display_mode");
}

/* One process list: probe, fill, and each PID's name from the driver. */
static void plist(nvmlDevice_t d, const char *fn, const char *kind)
{
    nvmlProcessInfo_v2_t buf[256];
    unsigned n = 0;
    char name[96];

    if (!sym(fn))
        return;
    if (((fn_procs)sym(fn))(d, &n, NULL) == NVML_ERROR_INSUFFICIENT_SIZE) {
        if (n > 256)
            n = 256;
        if (((fn_procs)sym(fn))(d, &n, buf) != NVML_SUCCESS)
            n = 0;
    }
    for (unsigned i = 0; i < n; i++) {
        name[0] = '\0';
        if (sym("nvmlSystemGetProcessName"))
            ((nvmlReturn_t(*)(unsigned, char *, unsigned))sym("nvmlSystemGetProcessName"))(buf[i].pid, name,
                                                                                          sizeof(name));
        printf("proc %s %u %llu %s\n", kind, buf[i].pid, buf[i].usedGpuMemory, name);
    }
}

static void processes(nvmlDevice_t d)
{
    nvmlProcessUtilizationSample_t s[512];
    unsigned n = 0;
    typedef nvmlReturn_t (*fn_pu)(nvmlDevice_t, nvmlProcessUtilizationSample_t *, unsigned *,
                                  unsigned long long);

    plist(d, "nvmlDeviceGetComputeRunningProcesses_v3", "compute");
    plist(d, "nvmlDeviceGetGraphicsRunningProcesses_v3", "graphics");
    plist(d, "nvmlDeviceGetMPSComputeRunningProcesses_v3", "mps");
    if (!sym("nvmlDeviceGetProcessUtilization"))
        return;
    if (((fn_pu)sym("nvmlDeviceGetProcessUtilization"))(d, NULL, &n, 0) == NVML_ERROR_INSUFFICIENT_SIZE) {
        if (n > 512)
            n = 512;
        if (((fn_pu)sym("nvmlDeviceGetProcessUtilization"))(d, s, &n, 0) != NVML_SUCCESS)
            n = 0;
    }
    for (unsigned i = 0; i < n; i++)
        printf("putil %u %u %u %u %u\n", s[i].pid, s[i].smUtil, s[i].memUtil, s[i].encUtil, s[i].decUtil);
}

int main(void)
{
    const char *path = getenv("GPUSCOPE_NVML_LIB");
    char b[96];
    unsigned count = 0;
    int cuda = 0;

    lib = dlopen(path && *path ? path : "libnvidia-ml.so.1", RTLD_NOW);
    if (!lib || !sym("nvmlInit_v2") || ((nvmlReturn_t(*)(void))sym("nvmlInit_v2"))() != NVML_SUCCESS) {
        fprintf(stderr, "bare_client: NVML not usable\n");
        return 3;
    }
    if (CALL(nvmlReturn_t(*)(char *, unsigned), "nvmlSystemGetDriverVersion", b, sizeof(b)) == NVML_SUCCESS)
        printf("driver %s\n", b);
    if (CALL(nvmlReturn_t(*)(char *, unsigned), "nvmlSystemGetNVMLVersion", b, sizeof(b)) == NVML_SUCCESS)
        printf("nvml %s\n", b);
    if (CALL(nvmlReturn_t(*)(int *), "nvmlSystemGetCudaDriverVersion_v2", &cuda) == NVML_SUCCESS)
        printf("cuda %d\n", cuda);
    CALL(nvmlReturn_t(*)(unsigned *), "nvmlDeviceGetCount_v2", &count);
    for (unsigned i = 0; i < count; i++) {
        nvmlDevice_t d = NULL;
        if (CALL(nvmlReturn_t(*)(unsigned, nvmlDevice_t *), "nvmlDeviceGetHandleByIndex_v2", i, &d) != NVML_SUCCESS)
            continue;
        printf("gpu %u\n", i);
        identity(d);
        limits(d);
        memory(d);
        thermal_power(d);
        health(d);
        processes(d);
    }
    ((nvmlReturn_t(*)(void))sym("nvmlShutdown"))();
    return 0;
}
