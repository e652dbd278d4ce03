/* SPDX-License-Identifier: MIT */
/*
 * scenario_cuda.c - the parser of `cuda` lines (scenario_cuda.h): the CUDA
 * simulator's devices, its faults, and the load response of the NVML
 * simulator. Stand-alone parser code, like the rest of sim/scenario*.c.
 */
#include "scenario_cuda.h"

#include <ctype.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "scenario_int.h"

static const struct {
    int code;
    const char *name;
} cuda_errors[] = {
    { 0, "CUDA_SUCCESS" },
    { 1, "CUDA_ERROR_INVALID_VALUE" },
    { 2, "CUDA_ERROR_OUT_OF_MEMORY" },
    { 3, "CUDA_ERROR_NOT_INITIALIZED" },
    { 4, "CUDA_ERROR_DEINITIALIZED" },
    { 34, "CUDA_ERROR_STUB_LIBRARY" },
    { 46, "CUDA_ERROR_DEVICE_UNAVAILABLE" },
    { 100, "CUDA_ERROR_NO_DEVICE" },
    { 101, "CUDA_ERROR_INVALID_DEVICE" },
    { 200, "CUDA_ERROR_INVALID_IMAGE" },
    { 201, "CUDA_ERROR_INVALID_CONTEXT" },
    { 209, "CUDA_ERROR_NO_BINARY_FOR_GPU" },
    { 214, "CUDA_ERROR_ECC_UNCORRECTABLE" },
    { 218, "CUDA_ERROR_INVALID_PTX" },
    { 221, "CUDA_ERROR_JIT_COMPILER_NOT_FOUND" },
    { 222, "CUDA_ERROR_UNSUPPORTED_PTX_VERSION" },
    { 400, "CUDA_ERROR_INVALID_HANDLE" },
    { 500, "CUDA_ERROR_NOT_FOUND" },
    { 600, "CUDA_ERROR_NOT_READY" },
    { 700, "CUDA_ERROR_ILLEGAL_ADDRESS" },
    { 701, "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES" },
    { 702, "CUDA_ERROR_LAUNCH_TIMEOUT" },
    { 709, "CUDA_ERROR_CONTEXT_IS_DESTROYED" },
    { 714, "CUDA_ERROR_HARDWARE_STACK_ERROR" },
    { 715, "CUDA_ERROR_ILLEGAL_INSTRUCTION" },
    { 719, "CUDA_ERROR_LAUNCH_FAILED" },
    { 800, "CUDA_ERROR_NOT_PERMITTED" },
    { 801, "CUDA_ERROR_NOT_SUPPORTED" },
    { 802, "CUDA_ERROR_SYSTEM_NOT_READY" },
    { 803, "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH" },
    { 804, "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE" },
    { 999, "CUDA_ERROR_UNKNOWN" },
};
#define NERRORS (sizeof(cuda_errors) / sizeof(cuda_errors[0]))

int gs_scn_cuda_error_code(const char *name)
{
    if (!name || !*name)
        return -1;
    if (isdigit((unsigned char)name[0])) {
        char *end;
        long v = strtol(name, &end, 10);
        for (size_t i = 0; !*end && i < NERRORS; i++)
            if (cuda_errors[i].code == v)
                return (int)v;
        return -1;
    }
    for (size_t i = 0; i < NERRORS; i++) {
        const char *full = cuda_errors[i].name;
        if (!strcasecmp(full, name) || (!strncmp(full, "CUDA_ERROR_", 11) && !strcasecmp(full + 11, name)))
            return cuda_errors[i].code;
    }
    return -1;
}

const char *gs_scn_cuda_error_name(int code)
{
    for (size_t i = 0; i < NERRORS; i++)
        if (cuda_errors[i].code == code)
            return cuda_errors[i].name;
    return NULL;
}

/* What simcuda/ exports (keep in step with simcuda/libcuda.map). */
static const char *const cuda_fns[] = {
    "cuInit", "cuDriverGetVersion", "cuDeviceGetCount", "cuDeviceGet", "cuDeviceGetName",
    "cuDeviceGetUuid", "cuDeviceGetUuid_v2", "cuDeviceTotalMem_v2", "cuDeviceGetAttribute",
    "cuDeviceGetPCIBusId", "cuCtxCreate_v2", "cuCtxDestroy_v2", "cuDevicePrimaryCtxRetain",
    "cuDevicePrimaryCtxRelease_v2", "cuCtxSetCurrent", "cuCtxSynchronize", "cuModuleLoadData",
    "cuModuleLoadDataEx", "cuModuleUnload", "cuModuleGetFunction", "cuMemGetInfo_v2", "cuMemAlloc_v2",
    "cuMemFree_v2", "cuMemcpyHtoD_v2", "cuMemcpyDtoH_v2", "cuMemsetD32_v2", "cuLaunchKernel",
    "cuStreamSynchronize", "cuEventCreate", "cuEventRecord", "cuEventSynchronize", "cuEventElapsedTime",
    "cuEventElapsedTime_v2", "cuEventDestroy_v2",
};

int gs_scn_cuda_fn_known(const char *name)
{
    for (size_t i = 0; i < sizeof(cuda_fns) / sizeof(cuda_fns[0]); i++)
        if (!strcmp(cuda_fns[i], name))
            return 1;
    return 0;
}

/* The kernels the simulator runs: src/burn/kernels.h's entries (a unit test
 * checks that the two lists agree). */
static const char *const cuda_kernels[] = {
    "gs_burn_rot32", "gs_burn_rot64", "gs_burn_mma", "gs_burn_mem_fill", "gs_burn_mem_check", "gs_burn_cmp",
};

int gs_scn_cuda_kernel_known(const char *entry)
{
    for (size_t i = 0; i < sizeof(cuda_kernels) / sizeof(cuda_kernels[0]); i++)
        if (!strcmp(cuda_kernels[i], entry))
            return 1;
    return 0;
}

static void cuda_gpu_defaults(struct gs_scn_cuda_gpu *g)
{
    *g = (struct gs_scn_cuda_gpu){ .sms = 4, .clock_mhz = 0, .memory_bytes = 2.0 * 1048576,
                                   .fp32_flops = 4e9, .fp64_flops = 2e9, .tensor_flops = 16e9,
                                   .mem_bytes_per_s = 0.2e9, .speed = 1, .cc_major = -1, .cc_minor = -1,
                                   .temp_load_c = 78, .tau_s = 20, .power_demand = 1.1,
                                   .clock_cap = 1 };
}

static void cuda_defaults(struct gs_scn_cuda *cu)
{
    memset(cu, 0, sizeof(*cu));
    cu->driver_version = 12040;
    for (int i = 0; i < 64; i++)
        cuda_gpu_defaults(&cu->gpus[i]);
}

static struct gs_scn_cuda cuda_default_section;
static pthread_once_t cuda_default_once = PTHREAD_ONCE_INIT;

static void cuda_default_init(void)
{
    cuda_defaults(&cuda_default_section);
}

const struct gs_scn_cuda *gs_scn_cuda_of(const struct gs_scn *s)
{
    if (s && s->cuda)
        return s->cuda;
    pthread_once(&cuda_default_once, cuda_default_init);
    return &cuda_default_section;
}

static struct gs_scn_cuda *cuda_section(struct gs_scn_ctx *c)
{
    if (!c->s->cuda) {
        c->s->cuda = gs_scn_arena_alloc(c->s, sizeof(*c->s->cuda));
        if (c->s->cuda)
            cuda_defaults(c->s->cuda);
    }
    return c->s->cuda;
}

/* A positive constant (units as for every value: MiB, GHz, C, s ...). */
static int cuda_number(struct gs_scn_ctx *c, const char *k, const char *v, double min, double *out)
{
    if (gs_scn_const(c, k, v, out) < 0)
        return -1;
    if (!(*out >= min))
        return gs_scn_err(c, "cuda %s=%s: must be at least %g", k, v, min);
    return 0;
}

/* FLOP/s: "4e9", "4GFLOPS", "1.5TFLOPS"; bytes/s: "0.2GBps" (as KB/s values), "200MB/s". */
static int cuda_rate(struct gs_scn_ctx *c, const char *k, const char *v, double *out)
{
    static const struct { const char *suffix; double scale; } units[] = {
        { "TFLOPS", 1e12 }, { "GFLOPS", 1e9 }, { "MFLOPS", 1e6 }, { "GB/s", 1e9 }, { "MB/s", 1e6 },
    };
    size_t n = strlen(v);
    for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
        size_t sl = strlen(units[i].suffix);
        if (n > sl && !strcmp(v + n - sl, units[i].suffix)) {
            char num[64];
            char *end;
            snprintf(num, sizeof(num), "%.*s", (int)(n - sl), v);
            double x = strtod(num, &end);
            if (end == num || *end || !(x > 0))
                return gs_scn_err(c, "cuda %s=%s: expected a positive number before %s", k, v, units[i].suffix);
            *out = x * units[i].scale;
            return 0;
        }
    }
    return cuda_number(c, k, v, 1, out);
}

static int cuda_gpu_attr(struct gs_scn_ctx *c, struct gs_scn_cuda_gpu *g, const char *k, const char *v)
{
    if (!strcmp(k, "sms"))
        return cuda_number(c, k, v, 1, &g->sms);
    if (!strcmp(k, "clock"))
        return cuda_number(c, k, v, 1, &g->clock_mhz);
    if (!strcmp(k, "memory"))
        return cuda_number(c, k, v, 65536, &g->memory_bytes);
    if (!strcmp(k, "fp32"))
        return cuda_rate(c, k, v, &g->fp32_flops);
    if (!strcmp(k, "fp64"))
        return cuda_rate(c, k, v, &g->fp64_flops);
    if (!strcmp(k, "tensor"))
        return cuda_rate(c, k, v, &g->tensor_flops);
    if (!strcmp(k, "membw"))
        return cuda_rate(c, k, v, &g->mem_bytes_per_s);
    if (!strcmp(k, "speed"))
        return cuda_number(c, k, v, 0.001, &g->speed);
    if (!strcmp(k, "temp_load"))
        return cuda_number(c, k, v, -50, &g->temp_load_c);
    if (!strcmp(k, "tau"))
        return cuda_number(c, k, v, 0.1, &g->tau_s);
    if (!strcmp(k, "power_demand"))
        return cuda_number(c, k, v, 0, &g->power_demand);
    if (!strcmp(k, "clock_cap"))
        return cuda_number(c, k, v, 0.01, &g->clock_cap);
    if (!strcmp(k, "cc")) {
        int maj, min;
        char tail;
        if (sscanf(v, "%d.%d%c", &maj, &min, &tail) != 2 || maj < 1 || min < 0)
            return gs_scn_err(c, "cuda cc=%s: expected MAJOR.MINOR such as 9.0", v);
        g->cc_major = maj;
        g->cc_minor = min;
        return 0;
    }
    return gs_scn_err(c, "cuda: unknown key '%s' (sms clock memory fp32 fp64 tensor membw speed cc temp_load tau "
                      "power_demand clock_cap)", k);
}

/* cuda [gpu=SEL] key=value ... */
static int cuda_line_gpus(struct gs_scn_ctx *c, struct gs_scn_cuda *cu, char **w, int n, int i)
{
    uint64_t mask = c->s->ngpus >= 64 ? ~0ull : (1ull << c->s->ngpus) - 1;
    if (i < n && !strncmp(w[i], "gpu=", 4)) {
        if (gs_scn_selection(c, w[i] + 4, 0, &mask) < 0)
            return -1;
        i++;
    }
    if (!mask)
        return gs_scn_err(c, "cuda: define the GPUs with gpu lines first");
    for (; i < n; i++) {
        char *eq = strchr(w[i], '=');
        if (!eq)
            return gs_scn_err(c, "cuda: expected key=value, got '%s'", w[i]);
        *eq = '\0';
        for (int g = 0; g < 64; g++)
            if ((mask >> g) & 1u) {
                if (cuda_gpu_attr(c, &cu->gpus[g], w[i], eq + 1) < 0) {
                    *eq = '=';
                    return -1;
                }
            }
        *eq = '=';
    }
    return 0;
}

static int cuda_line_system(struct gs_scn_ctx *c, struct gs_scn_cuda *cu, char **w, int n)
{
    for (int i = 2; i < n; i++) {
        const char *v = strchr(w[i], '=');
        int maj, min;
        char tail;
        if (v && !strncmp(w[i], "driver=", 7)) {
            if (sscanf(v + 1, "%d.%d%c", &maj, &min, &tail) == 2 && maj > 0 && min >= 0 && min < 100)
                cu->driver_version = maj * 1000 + min * 10;
            else if (sscanf(v + 1, "%d%c", &maj, &tail) == 1 && maj >= 1000)
                cu->driver_version = maj;
            else
                return gs_scn_err(c, "cuda system driver=%s: expected 12.4 or 12040", v + 1);
        } else if (v && !strncmp(w[i], "init_error=", 11)) {
            cu->init_error = gs_scn_cuda_error_code(v + 1);
            if (cu->init_error <= 0)
                return gs_scn_err(c, "cuda system init_error=%s: unknown CUDA error name", v + 1);
        } else {
            return gs_scn_err(c, "cuda system: bad word '%s' (driver= init_error=)", w[i]);
        }
    }
    return 0;
}

static int cuda_fault_word(struct gs_scn_ctx *c, struct gs_scn_cuda_fault *f, const char *w)
{
    const char *v = strchr(w, '=');
    double x;
    if (!strcmp(w, "persist") || !strcmp(w, "always")) {
        f->persist = 1;
        if (!strcmp(w, "always"))
            f->n = 1;
        return 0;
    }
    if (!v)
        return gs_scn_err(c, "cuda %s: bad word '%s'", f->kind == GS_SCN_CUDA_CORRUPT ? "corrupt" : "fault", w);
    v++;
    if (!strncmp(w, "gpu=", 4)) {
        if (gs_scn_const(c, "gpu", v, &x) < 0 || x < 0 || x >= c->s->ngpus || x != (int)x)
            return gs_scn_err(c, "cuda: gpu=%s is not a defined GPU index", v);
        f->gpu = (int)x;
    } else if (!strncmp(w, "launch=", 7) || !strncmp(w, "call=", 5)) {
        if (gs_scn_const(c, "call", v, &x) < 0 || x < 1 || x > 1e12 || x != (double)(unsigned long)x)
            return gs_scn_err(c, "cuda: %s: expected a count from 1", w);
        f->n = (unsigned long)x;
    } else if (!strncmp(w, "at=", 3) && f->kind == GS_SCN_CUDA_CORRUPT) {
        if (gs_scn_const(c, "at", v, &x) < 0 || x < 0)
            return gs_scn_err(c, "cuda corrupt at=%s: expected a time", v);
        f->at = x;
        f->n = 0;
    } else if (!strncmp(w, "count=", 6) && f->kind == GS_SCN_CUDA_CORRUPT) {
        if (gs_scn_const(c, "count", v, &x) < 0 || x < 1 || x > 1e6)
            return gs_scn_err(c, "cuda corrupt count=%s: expected 1..1000000", v);
        f->count = (unsigned)x;
    } else if (!strncmp(w, "kernel=", 7) && f->kind == GS_SCN_CUDA_CORRUPT) {
        if (!gs_scn_cuda_kernel_known(v))
            return gs_scn_err(c, "cuda corrupt kernel=%s: not a kernel the simulator runs (gs_burn_rot32 ...)", v);
        snprintf(f->kernel, sizeof(f->kernel), "%s", v);
    } else if (!strncmp(w, "error=", 6) && f->kind == GS_SCN_CUDA_ERROR) {
        f->error = gs_scn_cuda_error_code(v);
        if (f->error <= 0)
            return gs_scn_err(c, "cuda fault error=%s: unknown CUDA error (LAUNCH_FAILED, ILLEGAL_ADDRESS, 999 ...)", v);
    } else {
        return gs_scn_err(c, "cuda: bad word '%s'", w);
    }
    return 0;
}

static int cuda_line_fault(struct gs_scn_ctx *c, struct gs_scn_cuda *cu, char **w, int n,
                           enum gs_scn_cuda_fault_kind kind)
{
    int i = 2;
    if (cu->nfaults >= GS_SCN_CUDA_MAX_FAULTS)
        return gs_scn_err(c, "cuda: too many faults (at most %d)", GS_SCN_CUDA_MAX_FAULTS);
    struct gs_scn_cuda_fault f = { .kind = kind, .gpu = -1, .n = 1, .at = -1, .count = 1 };
    if (kind == GS_SCN_CUDA_ERROR) {
        if (n < 3 || !gs_scn_cuda_fn_known(w[2]))
            return gs_scn_err(c, "cuda fault: expected a CUDA function the simulator implements, got '%s'",
                              n < 3 ? "" : w[2]);
        snprintf(f.fn, sizeof(f.fn), "%s", w[2]);
        i = 3;
    }
    for (; i < n; i++)
        if (cuda_fault_word(c, &f, w[i]) < 0)
            return -1;
    if (kind == GS_SCN_CUDA_ERROR && !f.error)
        return gs_scn_err(c, "cuda fault: says nothing to do (give error=)");
    cu->faults[cu->nfaults++] = f;
    return 0;
}

int gs_scn_line_cuda(struct gs_scn_ctx *c, char **w, int n)
{
    struct gs_scn_cuda *cu = cuda_section(c);
    if (!cu)
        return gs_scn_err(c, "out of memory");
    if (n >= 2 && !strcmp(w[1], "system"))
        return cuda_line_system(c, cu, w, n);
    if (n >= 2 && !strcmp(w[1], "corrupt"))
        return cuda_line_fault(c, cu, w, n, GS_SCN_CUDA_CORRUPT);
    if (n >= 2 && !strcmp(w[1], "fault"))
        return cuda_line_fault(c, cu, w, n, GS_SCN_CUDA_ERROR);
    return cuda_line_gpus(c, cu, w, n, 1);
}
