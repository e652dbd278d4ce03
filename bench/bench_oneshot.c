/* SPDX-License-Identifier: MIT */
/*
 * bench_oneshot.c - issue 2 section 7 (c): wall time and peak RSS of a
 * one-shot command (`gpuscope query --format json`), median of N runs.
 *
 *   bench_oneshot [-n RUNS] -- PROGRAM ARGS...
 *
 * Each run: fork, exec PROGRAM with stdout to /dev/null, wait4. Wall time is
 * CLOCK_MONOTONIC from fork to reaping; peak RSS is the child's ru_maxrss.
 * Linux folds the pre-exec image of the forked child (a copy of this small
 * program) into ru_maxrss, so "floor_rss_kib" (our own peak) is printed too:
 * a figure at that floor means "at most this". CPU time is the child's user +
 * system time (wait4). Prints "key value" lines;
 * exit 1 if any run exited non-zero.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int cmp_long(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    return (x > y) - (x < y);
}

static double median(const long *sorted, unsigned n)
{
    return (sorted[(n - 1) / 2] + sorted[n / 2]) / 2.0;
}

/* One run: wall time in us, peak RSS in KiB, CPU time (user + system) in us;
 * returns the exit status. */
static int run_once(char **argv, long *wall_us, long *rss_kib, long *cpu_us)
{
    struct timespec t0, t1;
    struct rusage ru;
    int status = 0;
    pid_t pid;

    clock_gettime(CLOCK_MONOTONIC, &t0);
    pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        int fd = open("/dev/null", O_WRONLY);
        if (fd >= 0)
            dup2(fd, STDOUT_FILENO);
        execvp(argv[0], argv);
        _exit(127);
    }
    if (wait4(pid, &status, 0, &ru) < 0)
        return -1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    *wall_us = (t1.tv_sec - t0.tv_sec) * 1000000L + (t1.tv_nsec - t0.tv_nsec) / 1000L;
    *rss_kib = ru.ru_maxrss;
    *cpu_us = (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000L + ru.ru_utime.tv_usec + ru.ru_stime.tv_usec;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int main(int argc, char **argv)
{
    unsigned runs = 20, failed = 0;
    long *wall, *rss, *cpu;
    struct rusage self;
    int opt, last = 0;

    while ((opt = getopt(argc, argv, "+n:")) != -1) {
        if (opt != 'n')
            return 2;
        runs = (unsigned)strtoul(optarg, NULL, 10);
    }
    if (optind >= argc || !runs) {
        fprintf(stderr, "usage: bench_oneshot [-n RUNS] -- PROGRAM ARGS...\n");
        return 2;
    }
    wall = calloc(runs, sizeof(*wall));
    rss = calloc(runs, sizeof(*rss));
    cpu = calloc(runs, sizeof(*cpu));
    if (!wall || !rss || !cpu)
        return 2;
    for (unsigned i = 0; i < runs; i++) {
        int rc = run_once(argv + optind, &wall[i], &rss[i], &cpu[i]);
        if (rc != 0) {
            failed++;
            last = rc;
        }
    }
    qsort(wall, runs, sizeof(*wall), cmp_long);
    qsort(rss, runs, sizeof(*rss), cmp_long);
    qsort(cpu, runs, sizeof(*cpu), cmp_long);
    getrusage(RUSAGE_SELF, &self);
    printf("runs %u\nfailed_runs %u\nlast_exit %d\n", runs, failed, last);
    printf("wall_median_ms %.2f\nwall_min_ms %.2f\nwall_max_ms %.2f\n", median(wall, runs) / 1000.0,
           wall[0] / 1000.0, wall[runs - 1] / 1000.0);
    printf("rss_median_kib %.0f\nrss_max_kib %ld\nfloor_rss_kib %ld\n", median(rss, runs), rss[runs - 1],
           self.ru_maxrss);
    printf("cpu_median_ms %.2f\n", median(cpu, runs) / 1000.0);
    free(wall);
    free(rss);
    free(cpu);
    return failed ? 1 : 0;
}
