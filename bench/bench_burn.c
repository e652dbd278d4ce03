/* SPDX-License-Identifier: MIT */
/*
 * bench_burn.c - what `gpuscope burn` costs besides the GPUs' work, measured
 * here (bench/burn.sh runs it with the simulator environment set):
 *   tick    CPU time of one monitoring tick of burn's main thread (a snapshot
 *           with every counter read, as burn reads them, plus the monitor's
 *           bookkeeping for every GPU), and of a snapshot on the default
 *           5 s read schedule for comparison, in the same run;
 *   ref     the CPU reference kernels' throughput on this CPU (what the CUDA
 *           simulator runs instead of the PTX, and what burn recomputes for a
 *           sample of threads): simulator figures, not a GPU's.
 *
 *   bench_burn [-n TICKS]     prints "key value" lines
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "burn/burn_priv.h"
#include "burn/kernels.h"
#include "core/sampler.h"

static double cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* us of CPU per tick over n ticks; monitor: add burn's bookkeeping. */
static double ticks(int n, bool monitor, unsigned *ngpus)
{
    struct gs_sampler_opts so = GS_SAMPLER_OPTS_INIT;
    struct gs_sampler *s;
    struct gs_err err = { 0 };
    struct gs_snapshot snap;
    struct gs_burn_opts o;
    static struct burn_gpu gpus[64];
    so.slow = GS_SLOW_SKIP;
    so.want_procs = false;
    so.want_host = false;
    gs_burn_opts_default(&o);
    if (gs_sampler_open(&s, &so, &err) < 0) {
        gs_err_print(&err);
        exit(2);
    }
    gs_snapshot_init(&snap);
    gs_sampler_snapshot(s, &snap, &err);
    memset(gpus, 0, sizeof(gpus));
    double t0 = cpu_s();
    for (int i = 0; i < n; i++) {
        gs_sampler_snapshot(s, &snap, &err);
        for (uint32_t g = 0; monitor && g < snap.ngpus && g < 64; g++)
            gs_burn_monitor_tick(&o, &gpus[g], &snap.gpus[g], &snap, i, 1);
    }
    double us = (cpu_s() - t0) / n * 1e6;
    *ngpus = snap.ngpus;
    gs_snapshot_release(&snap);
    gs_sampler_close(s);
    return us;
}

static void reference(void)
{
    volatile uint32_t sink = 0;
    double t0 = cpu_s();
    const uint32_t trips = 2000;
    for (uint32_t t = 0; t < 64; t++)
        sink ^= gs_burn_ref_rot32(t, trips, 1);
    double s32 = cpu_s() - t0;
    t0 = cpu_s();
    for (uint32_t t = 0; t < 64; t++)
        sink ^= (uint32_t)gs_burn_ref_rot64(t, trips, 1);
    double s64 = cpu_s() - t0;
    double flops = 64.0 * trips * GS_BURN_ROT_FLOPS_PER_TRIP;
    size_t words = 16u << 20; /* 64 MiB */
    uint32_t *buf = malloc(words * 4);
    if (!buf)
        return;
    t0 = cpu_s();
    for (int pass = 0; pass < 4; pass++)
        for (size_t w = 0; w < words; w++)
            buf[w] = gs_burn_ref_mem(w, (uint32_t)pass, GS_BURN_MEM_MODE_ADDRESS);
    double sm = cpu_s() - t0;
    sink ^= buf[words / 2];
    free(buf);
    printf("ref_fp32_gflops %.3f\n", flops / s32 / 1e9);
    printf("ref_fp64_gflops %.3f\n", flops / s64 / 1e9);
    printf("ref_mem_fill_gbps %.2f\n", 4.0 * (double)words * 4 / sm / 1e9);
    (void)sink;
}

int main(int argc, char **argv)
{
    int n = 500, opt;
    unsigned ngpus = 0;
    while ((opt = getopt(argc, argv, "n:")) != -1)
        n = opt == 'n' ? (int)strtol(optarg, NULL, 10) : n;
    setenv("GPUSCOPE_READ_PERIOD_MS", "0", 1);
    double burn_us = ticks(n, true, &ngpus);
    setenv("GPUSCOPE_READ_PERIOD_MS", "5000", 1);
    double sched_us = ticks(n, false, &ngpus);
    printf("gpus %u\n", ngpus);
    printf("tick_us_burn %.1f\n", burn_us);
    printf("tick_us_default_schedule %.1f\n", sched_us);
    reference();
    return 0;
}
