/* SPDX-License-Identifier: MIT */
/*
 * bench_jobmap.c - the per-tick cost of serve's --hpc-job-mapping-dir (core/jobmap.h)
 * and of the Slurm job in the cgroup parser (core/hostproc_parse.c), for bench/slurm.sh:
 *   bench_jobmap DIR N     N ticks over DIR unchanged, then N ticks with one file
 *                          rewritten before each (a prolog every tick: the worst case)
 *   bench_jobmap - N       N parses of a Slurm cgroup v1 and a v2 /proc/PID/cgroup
 * Prints microseconds per tick / per parse (CPU time of this process).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/hostproc.h"
#include "core/jobmap.h"

static double cpu_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

static int bench_cgroup(long n)
{
    static const char v1[] = "12:devices:/slurm/uid_1000/job_1234/step_0/task_0\n"
                             "11:memory:/slurm/uid_1000/job_1234/step_0/task_0\n"
                             "4:freezer:/slurm/uid_1000/job_1234/step_0\n1:name=systemd:/system.slice/slurmd.service\n";
    static const char v2[] = "0::/system.slice/slurmstepd.scope/job_1234/step_0/user/task_0\n";
    struct gs_proc p;
    unsigned long sink = 0;
    memset(&p, 0, sizeof(p));
    double t0 = cpu_us();
    for (long i = 0; i < n; i++) {
        gs_hostproc_parse_cgroup(i & 1 ? v2 : v1, i & 1 ? sizeof(v2) - 1 : sizeof(v1) - 1, &p);
        sink += p.slurm_job;
    }
    double t1 = cpu_us();
    printf("cgroup parse (Slurm v1/v2 alternating): %.3f us each (%lu)\n", (t1 - t0) / (double)n, sink % 7);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 3)
        return fprintf(stderr, "usage: bench_jobmap DIR|- N\n"), 2;
    long n = strtol(argv[2], NULL, 10);
    if (!strcmp(argv[1], "-"))
        return bench_cgroup(n);
    struct gs_jobmap_dir *d = gs_jobmap_dir_new(argv[1], "bench");
    char path[4096];
    snprintf(path, sizeof(path), "%s/0", argv[1]);
    gs_jobmap_dir_tick(d);
    double t0 = cpu_us();
    for (long i = 0; i < n; i++)
        gs_jobmap_dir_tick(d);
    double t1 = cpu_us();
    unsigned long long r1 = (unsigned long long)gs_jobmap_dir_reads(d);
    for (long i = 0; i < n; i++) {
        FILE *f = fopen(path, "w");
        if (f) {
            fprintf(f, "%ld\n%ld\n", 1000 + i, 2000 + i);
            fclose(f);
        }
        gs_jobmap_dir_tick(d);
    }
    double t2 = cpu_us();
    printf("mapping dir unchanged: %.2f us per tick (files read %llu times in all)\n", (t1 - t0) / (double)n, r1);
    printf("mapping dir, a file rewritten every tick: %.2f us per tick including the write (read %llu times)\n",
           (t2 - t1) / (double)n, (unsigned long long)gs_jobmap_dir_reads(d) - r1);
    gs_jobmap_dir_free(d);
    return 0;
}
