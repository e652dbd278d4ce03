/* SPDX-License-Identifier: MIT */
/*
 * sim_cost.c - the simulator's cost model (GPUSCOPE_SIM_CALL_COST_US): what an
 * NVML call costs its caller on a real driver, spent inside each exported call
 * so that a benchmark measures what a user pays, not only the monitor's own code.
 *
 * Each function is in a class (sim_cost_class); a class costs CPU time (a busy
 * loop on CLOCK_THREAD_CPUTIME_ID, so it shows in the caller's schedstat as a
 * driver's ioctl does) or, for the sampling calls, wall time (a sleep: the
 * driver waits on the GPU, the CPU is free). The cost is spent before the
 * simulator's lock is taken, so threads calling about different GPUs pay it in
 * parallel, as they do on a driver. Off (no cost at all) unless the variable is
 * set to a number above 0. Figures and their sources: docs/SIMULATOR.md, "Cost model".
 */
#include "sim.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum sim_cost_class {
    SIM_COST_GET,    /* a plain getter: one RM control through an ioctl */
    SIM_COST_LIB,    /* answered from what the library holds since init */
    SIM_COST_LIST,   /* process lists, samples: a control that copies a list */
    SIM_COST_FIELDS, /* nvmlDeviceGetFieldValues: GET once, plus FIELD per entry */
    SIM_COST_SAMPLE, /* a call that measures over a window (PCIe throughput): wall time */
    SIM_COST_INIT,   /* nvmlInit*: opening the device nodes, attaching every GPU */
    SIM_COST__N
};

static const char *const sim_cost_env[SIM_COST__N] = {
    "GPUSCOPE_SIM_CALL_COST_US", "GPUSCOPE_SIM_CALL_COST_LIB_US", "GPUSCOPE_SIM_CALL_COST_LIST_US",
    "GPUSCOPE_SIM_CALL_COST_FIELDS_US", "GPUSCOPE_SIM_CALL_COST_SAMPLE_US", "GPUSCOPE_SIM_CALL_COST_INIT_US",
};
/* Defaults once the model is on (docs/SIMULATOR.md says where each comes from). */
static const double sim_cost_default[SIM_COST__N] = { 20, 1, 60, 20, 20000, 20000 };
#define SIM_COST_FIELD_DEFAULT 2.0 /* per entry of a field-values call */

static struct {
    int on;
    double us[SIM_COST__N];
    double field_us;
    unsigned char cls[SIM_SYM__COUNT];
} sim_cost;
static pthread_once_t sim_cost_once = PTHREAD_ONCE_INIT;

static double sim_cost_env_us(const char *name, double dflt)
{
    const char *v = getenv(name);
    char *end;

    if (!v || !*v)
        return dflt;
    errno = 0;
    double us = strtod(v, &end);
    if (errno || *end || !(us >= 0) || us > 10e6) {
        fprintf(stderr, "gpuscope-sim: %s=%s: not a number of microseconds (0-10000000); using %g\n", name, v,
                dflt);
        return dflt;
    }
    return us;
}

static int sim_name_has(const char *name, const char *part)
{
    return strstr(name, part) != NULL;
}

static enum sim_cost_class sim_cost_classify(const char *name)
{
    static const char *const lib[] = { "nvmlErrorString", "nvmlShutdown", "nvmlSystemGetDriverVersion",
                                       "nvmlSystemGetNVMLVersion", "nvmlSystemGetCudaDriverVersion",
                                       "nvmlDeviceGetCount", "nvmlDeviceGetHandleByIndex", "nvmlEventSet",
                                       "nvmlGpmSampleAlloc", "nvmlGpmSampleFree", "nvmlGpmMetricsGet" };
    if (strncmp(name, "nvmlInit", 8) == 0)
        return SIM_COST_INIT;
    if (strcmp(name, "nvmlDeviceGetPcieThroughput") == 0)
        return SIM_COST_SAMPLE;
    if (strcmp(name, "nvmlDeviceGetFieldValues") == 0)
        return SIM_COST_FIELDS;
    for (size_t i = 0; i < sizeof(lib) / sizeof(lib[0]); i++)
        if (strncmp(name, lib[i], strlen(lib[i])) == 0 && strncmp(name, "nvmlEventSetWait", 16) != 0)
            return SIM_COST_LIB;
    if (sim_name_has(name, "RunningProcesses") || sim_name_has(name, "ProcessUtilization") ||
        sim_name_has(name, "ProcessesUtilization") || sim_name_has(name, "ProcessDetailList") ||
        sim_name_has(name, "GetSamples"))
        return SIM_COST_LIST;
    return SIM_COST_GET;
}

static void sim_cost_setup(void)
{
    double get = sim_cost_env_us(sim_cost_env[SIM_COST_GET], 0);

    if (get <= 0)
        return;
    sim_cost.us[SIM_COST_GET] = get;
    for (int k = 1; k < SIM_COST__N; k++)
        sim_cost.us[k] = sim_cost_env_us(sim_cost_env[k], sim_cost_default[k]);
    sim_cost.field_us = sim_cost_env_us("GPUSCOPE_SIM_CALL_COST_FIELD_US", SIM_COST_FIELD_DEFAULT);
    for (int i = 0; i < SIM_SYM__COUNT; i++)
        sim_cost.cls[i] = (unsigned char)sim_cost_classify(gs_sim_sym_names[i]);
    __atomic_store_n(&sim_cost.on, 1, __ATOMIC_RELEASE);
}

static int sim_cost_on(void)
{
    pthread_once(&sim_cost_once, sim_cost_setup);
    return __atomic_load_n(&sim_cost.on, __ATOMIC_ACQUIRE);
}

static double sim_thread_cpu_us(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

/* Burn us microseconds of this thread's CPU time (not wall time: a preempted
 * thread keeps spinning until it has had its share, as a driver call would). */
static void sim_spend_cpu(double us)
{
    static volatile unsigned sink;
    double end = sim_thread_cpu_us() + us;

    while (sim_thread_cpu_us() < end)
        for (unsigned i = 0; i < 64; i++)
            sink = sink * 1664525u + 1013904223u;
}

static void sim_spend_wall(double us)
{
    struct timespec ts = { (time_t)(us / 1e6), (long)((us - (double)(time_t)(us / 1e6) * 1e6) * 1e3) };

    while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
        ;
}

static void sim_cost_spend(enum sim_cost_class k)
{
    if (k == SIM_COST_SAMPLE) { /* the window is waited out; the call itself is a getter */
        sim_spend_cpu(sim_cost.us[SIM_COST_GET]);
        sim_spend_wall(sim_cost.us[SIM_COST_SAMPLE]);
        return;
    }
    sim_spend_cpu(sim_cost.us[k]);
}

void gs_sim_cost_sym(enum sim_sym sym)
{
    if (sim_cost_on())
        sim_cost_spend((enum sim_cost_class)sim_cost.cls[sym]);
}

void gs_sim_cost_name(const char *name)
{
    if (sim_cost_on())
        sim_cost_spend(sim_cost_classify(name));
}

void gs_sim_cost_fields(int n)
{
    if (n > 0 && sim_cost_on())
        sim_spend_cpu(sim_cost.field_us * n);
}
