/* SPDX-License-Identifier: MIT */
/*
 * bench_snapshot.c - issue 2 section 7 (a) and (b): CPU time per complete
 * snapshot (gs_sampler_snapshot) and NVML calls per snapshot, counted by the
 * simulator. Run by bench/run with the simulator environment set
 * (GPUSCOPE_NVML_LIB, GPUSCOPE_SIM_SCENARIO, GPUSCOPE_SIM_PIDS, ...).
 *
 *   bench_snapshot [-n SNAPSHOTS] [-m SIM_MAP_FILE] [-H] [-P]
 *     -n  timed snapshots after one untimed warm-up (default 1000)
 *     -m  the simulator profile's version script, to enumerate NVML symbols
 *         for the call-count checks (omitted: no call checks)
 *     -H  without host facts (/proc), to show what they cost
 *     -P  without the profiling metrics (GPM), to show what they cost
 *
 * Prints "key value" lines (figures) and "check NAME PASS|FAIL detail" lines;
 * bench/run turns them into the table. Exit 0, or 1 when a check failed,
 * 2 when the sampler could not run at all.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/err.h"
#include "core/sampler.h"

#define MAX_SYMS 512

/* Static facts: these may only be called while the sampler opens. */
static const char *const static_syms[] = {
    "nvmlSystemGetDriverVersion", "nvmlSystemGetNVMLVersion", "nvmlSystemGetCudaDriverVersion",
    "nvmlSystemGetCudaDriverVersion_v2", "nvmlDeviceGetCount", "nvmlDeviceGetCount_v2",
    "nvmlDeviceGetHandleByIndex", "nvmlDeviceGetHandleByIndex_v2", "nvmlDeviceGetName",
    "nvmlDeviceGetUUID", "nvmlDeviceGetSerial", "nvmlDeviceGetPciInfo", "nvmlDeviceGetPciInfo_v2",
    "nvmlDeviceGetPciInfo_v3", "nvmlDeviceGetBoardId", "nvmlDeviceGetVbiosVersion",
    "nvmlDeviceGetArchitecture", "nvmlDeviceGetCudaComputeCapability", "nvmlDeviceGetBrand",
    "nvmlDeviceGetMinorNumber", "nvmlDeviceGetTemperatureThreshold",
    "nvmlDeviceGetPowerManagementDefaultLimit", "nvmlDeviceGetPowerManagementLimitConstraints",
    "nvmlDeviceGetMaxClockInfo", "nvmlDeviceGetMaxPcieLinkGeneration",
    "nvmlDeviceGetGpuMaxPcieLinkGeneration", "nvmlDeviceGetMaxPcieLinkWidth", "nvmlDeviceGetNumFans",
    "nvmlDeviceGetSupportedClocksEventReasons", "nvmlDeviceGetSupportedClocksThrottleReasons",
    "nvmlInit", "nvmlInit_v2",
};

/* Per-GPU functions legitimately called once per argument value: the most
 * calls per GPU per tick each may make. Everything else: 1. */
struct allowance {
    const char *sym;
    unsigned calls;
    const char *why;
};
static const struct allowance allowances[] = {
    { "nvmlDeviceGetClockInfo", 4, "graphics, SM, memory, video" },
    { "nvmlDeviceGetPcieThroughput", 2, "TX, RX" },
    { "nvmlDeviceGetTotalEccErrors", 4, "corrected/uncorrected x volatile/aggregate" },
    { "nvmlDeviceGetRetiredPages", 2, "single-bit, double-bit" },
    { "nvmlDeviceGetRetiredPages_v2", 2, "single-bit, double-bit" },
    { "nvmlDeviceGetTemperature", 2, "GPU, memory sensor" },
    { "nvmlDeviceGetTemperatureV", 2, "GPU, memory sensor" },
    { "nvmlDeviceGetFanSpeed_v2", 8, "one per fan (GS_MAX_FANS)" },
    { "nvmlGpmMetricsGet", 1 + 7, "the whole GPU, then each MIG GPU instance (at most 7)" },
    { "nvmlGpmMigSampleGet", 7, "each MIG GPU instance (at most 7)" },
};

struct sym_count {
    char name[96];
    unsigned long long open, first, end; /* after open, after warm-up, after the run */
};

static unsigned long long (*call_count)(const char *symbol);

static double ts_us(const struct timespec *a, const struct timespec *b)
{
    return (double)(b->tv_sec - a->tv_sec) * 1e6 + (double)(b->tv_nsec - a->tv_nsec) / 1e3;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double percentile(const double *sorted, unsigned n, double pct)
{
    unsigned k = (unsigned)(pct / 100.0 * n + 0.999999);
    return sorted[k ? k - 1 : 0];
}

/* The simulator's gssimCallCount, from the library the backend loaded. */
static void bind_call_count(void)
{
    const char *lib = getenv("GPUSCOPE_NVML_LIB");
    void *h = lib ? dlopen(lib, RTLD_NOW | RTLD_NOLOAD) : NULL;
    void *p = h ? dlsym(h, "gssimCallCount") : dlsym(RTLD_DEFAULT, "gssimCallCount");

    memcpy(&call_count, &p, sizeof(p));
}

/* NVML symbols named in a linker version script ("nvmlFoo;" lines). */
static unsigned read_map(const char *path, struct sym_count *syms, unsigned max)
{
    FILE *f = fopen(path, "r");
    char line[256];
    unsigned n = 0;

    if (!f)
        return 0;
    while (n < max && fgets(line, sizeof(line), f)) {
        char *s = strstr(line, "nvml");
        size_t len = s ? strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") : 0;
        if (!len || len >= sizeof(syms[0].name) || (s > line && s[-1] != ' ' && s[-1] != '\t'))
            continue;
        memcpy(syms[n].name, s, len);
        syms[n].name[len] = '\0';
        n++;
    }
    fclose(f);
    return n;
}

static void count_all(struct sym_count *syms, unsigned n, int phase)
{
    for (unsigned i = 0; i < n; i++) {
        unsigned long long c = call_count(syms[i].name);
        if (phase == 0)
            syms[i].open = c;
        else if (phase == 1)
            syms[i].first = c;
        else
            syms[i].end = c;
    }
}

static bool is_static(const char *sym)
{
    for (size_t i = 0; i < sizeof(static_syms) / sizeof(static_syms[0]); i++)
        if (!strcmp(sym, static_syms[i]))
            return true;
    return false;
}

static unsigned allowed_per_gpu(const char *sym)
{
    for (size_t i = 0; i < sizeof(allowances) / sizeof(allowances[0]); i++)
        if (!strcmp(sym, allowances[i].sym))
            return allowances[i].calls;
    return 1;
}

/* (b): per-GPU functions at most once per GPU per tick (per argument value),
 * static facts only while opening. Returns the number of failed checks. */
static int check_calls(const struct sym_count *syms, unsigned n, unsigned iters, unsigned ngpus)
{
    double total = 0, first = 0;
    int bad_tick = 0, bad_static = 0;

    for (unsigned i = 0; i < n; i++) {
        const struct sym_count *s = &syms[i];
        double per_tick = (double)(s->end - s->first) / iters;
        total += per_tick;
        first += (double)(s->first - s->open);
        if (is_static(s->name)) {
            if (s->end != s->open) {
                printf("detail static %s called %llu times during snapshots (open: %llu)\n", s->name,
                       s->end - s->open, s->open);
                bad_static++;
            }
            continue;
        }
        if ((!strncmp(s->name, "nvmlDevice", 10) || !strncmp(s->name, "nvmlGpm", 7)) && per_tick > (double)allowed_per_gpu(s->name) * ngpus) {
            printf("detail per-gpu %s %.2f calls per tick for %u GPUs (allowed %u per GPU)\n", s->name,
                   per_tick, ngpus, allowed_per_gpu(s->name));
            bad_tick++;
        }
        if (per_tick > 0)
            printf("calls %s %.2f per tick (%.2f per GPU), %llu while opening\n", s->name, per_tick,
                   per_tick / ngpus, s->open);
    }
    printf("nvml_calls_per_snapshot %.1f\n", total);
    printf("nvml_calls_first_snapshot %.0f\n", first);
    printf("check per-gpu-once-per-tick %s\n", bad_tick ? "FAIL" : "PASS");
    printf("check static-once-per-run %s\n", bad_static ? "FAIL" : "PASS");
    return bad_tick + bad_static;
}

static void print_snapshot_facts(const struct gs_snapshot *snap)
{
    unsigned procs = 0, visible = 0, cpu = 0;

    for (uint32_t g = 0; g < snap->ngpus; g++) {
        for (uint32_t k = 0; k < snap->gpus[g].nprocs; k++) {
            const struct gs_proc *p = &snap->gpus[g].procs[k];
            procs++;
            visible += p->host_vis == GS_HOST_VISIBLE;
            cpu += gs_proc_has(p, GS_P_CPU);
        }
    }
    printf("gpus %u\nprocs %u\nprocs_host_visible %u\nprocs_with_cpu_pct %u\n", snap->ngpus, procs,
           visible, cpu);
}

/* (a): n timed snapshots; fills cpu_us[] (process CPU time, all threads). */
static int time_snapshots(struct gs_sampler *s, struct gs_snapshot *snap, double *cpu_us,
                          double *wall_us, unsigned n)
{
    struct gs_err err;

    for (unsigned i = 0; i < n; i++) {
        struct timespec c0, c1, w0, w1;
        clock_gettime(CLOCK_MONOTONIC, &w0);
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c0);
        int rc = gs_sampler_snapshot(s, snap, &err);
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c1);
        clock_gettime(CLOCK_MONOTONIC, &w1);
        if (rc < 0) {
            fprintf(stderr, "bench_snapshot: snapshot %u: %s\n", i, err.msg);
            return -1;
        }
        cpu_us[i] = ts_us(&c0, &c1);
        wall_us[i] = ts_us(&w0, &w1);
    }
    return 0;
}

static void print_distribution(const char *name, double *v, unsigned n)
{
    qsort(v, n, sizeof(*v), cmp_double);
    printf("%s_median_us %.1f\n%s_p95_us %.1f\n%s_min_us %.1f\n", name, percentile(v, n, 50), name,
           percentile(v, n, 95), name, v[0]);
}

int main(int argc, char **argv)
{
    struct gs_sampler_opts o = GS_SAMPLER_OPTS_INIT;
    static struct sym_count syms[MAX_SYMS];
    unsigned iters = 1000, nsyms = 0;
    const char *map = NULL;
    struct gs_sampler *s;
    struct gs_snapshot snap;
    struct gs_err err;
    struct timespec c0, c1;
    int opt, bad = 0;

    while ((opt = getopt(argc, argv, "n:m:HP")) != -1) {
        if (opt == 'n')
            iters = (unsigned)strtoul(optarg, NULL, 10);
        else if (opt == 'm')
            map = optarg;
        else if (opt == 'H')
            o.want_host = false;
        else if (opt == 'P') {
            o.want = gs_fmask_all();
            for (unsigned k = 0; k < GS_PROF_COUNT; k++)
                gs_fmask_clear(&o.want, GS_F_PROF_FIRST + k);
        }
        else
            return 2;
    }
    if (!iters)
        iters = 1;
    o.slow = GS_SLOW_INLINE; /* no worker thread: its CPU would blur process CPU time */
    if (gs_sampler_open(&s, &o, &err) < 0) {
        gs_err_print(&err);
        return 2;
    }
    bind_call_count();
    if (map && call_count)
        nsyms = read_map(map, syms, MAX_SYMS);
    count_all(syms, nsyms, 0);
    gs_snapshot_init(&snap);
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c0);
    if (gs_sampler_snapshot(s, &snap, &err) < 0) {
        gs_err_print(&err);
        return 2;
    }
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c1);
    printf("first_snapshot_cpu_us %.1f\n", ts_us(&c0, &c1));
    count_all(syms, nsyms, 1);

    double *cpu_us = calloc(iters, sizeof(double)), *wall_us = calloc(iters, sizeof(double));
    if (!cpu_us || !wall_us || time_snapshots(s, &snap, cpu_us, wall_us, iters) < 0)
        return 2;
    count_all(syms, nsyms, 2);
    printf("snapshots %u\n", iters);
    print_snapshot_facts(&snap);
    print_distribution("cpu", cpu_us, iters);
    print_distribution("wall", wall_us, iters);
    if (nsyms)
        bad = check_calls(syms, nsyms, iters, snap.ngpus);
    else
        printf("check nvml-call-counts SKIP %s\n", call_count ? "no symbol map" : "no gssimCallCount");
    free(cpu_us);
    free(wall_us);
    gs_snapshot_release(&snap);
    gs_sampler_close(s);
    return bad ? 1 : 0;
}
