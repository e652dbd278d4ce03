/* SPDX-License-Identifier: MIT */
/*
 * bench_filecost.c - what a real sysfs or procfs file costs this machine's
 * kernel over the same operation on a tmpfs file: the figures the DRM cost
 * model (sim/drm/cost/drmcost.c) adds to each read of a drmsim tree, which
 * lives on tmpfs and so already pays the tmpfs side. bench/drm.sh runs it and
 * hands its figures to the model; docs/SIMULATOR.md, "Cost model", says why.
 *
 *   bench_filecost [-n OPS] [-d TMPDIR]
 *     -n  operations per batch (default 5000; 7 batches, the median is kept)
 *     -d  where the tmpfs twins are written (default /dev/shm)
 *
 * Each figure is CPU time of this process (CLOCK_PROCESS_CPUTIME_ID), real
 * file minus tmpfs twin of the same size, floored at 0, in microseconds:
 *   sysfs_read_us    pread(2) of a kept fd of a sysfs attribute
 *                    (/sys/devices/system/cpu/cpu0/topology/core_id: kernfs,
 *                    seq_file and a show() that prints one number)
 *   proc_read_us     pread of a kept /proc/self/stat
 *   fdinfo_read_us   pread of a kept /proc/self/fdinfo/N (N: a pipe)
 *   open_us          openat + close of the sysfs attribute (path lookup in
 *                    kernfs, the open file's buffers)
 *   proc_open_us     openat + close of /proc/self/stat
 *   dirent_us        per entry of a /proc listing (readdir)
 *   link_us          readlinkat of /proc/self/fd/N (a magic link)
 * plus the raw pairs (_real_us, _tmpfs_us). What these leave out is the
 * driver's own time behind a GPU's file (amdgpu's SMU messages, DRM's walk of
 * a client's buffers for fdinfo): no such file is on this machine.
 * Exit 0, or 2 when a file could not be opened.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define BATCHES 7

static const char sysfs_attr[] = "/sys/devices/system/cpu/cpu0/topology/core_id";

struct fc {
    unsigned ops;
    char dir[256];
    int pipe_fd[2];
};

static double cpu_us(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
}

/* What one operation costs: the median batch over ops operations. */
typedef int (*op_fn)(const struct fc *fc, const void *arg);
static double measure(const struct fc *fc, op_fn op, const void *arg)
{
    double b[BATCHES];

    for (int i = 0; i < BATCHES; i++) {
        double t0 = cpu_us();
        for (unsigned k = 0; k < fc->ops; k++)
            if (op(fc, arg) < 0)
                return -1;
        b[i] = (cpu_us() - t0) / fc->ops;
    }
    qsort(b, BATCHES, sizeof(b[0]), cmp_d);
    return b[BATCHES / 2];
}

static int op_pread(const struct fc *fc, const void *arg)
{
    char buf[4096];

    (void)fc;
    return pread(*(const int *)arg, buf, sizeof(buf), 0) < 0 ? -1 : 0;
}

static int op_open(const struct fc *fc, const void *arg)
{
    (void)fc;
    int fd = open((const char *)arg, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    close(fd);
    return 0;
}

static int op_list(const struct fc *fc, const void *arg)
{
    (void)fc;
    DIR *d = opendir((const char *)arg);
    if (!d)
        return -1;
    while (readdir(d))
        ;
    closedir(d);
    return 0;
}

static int op_link(const struct fc *fc, const void *arg)
{
    char buf[256];

    (void)fc;
    return readlink((const char *)arg, buf, sizeof(buf)) < 0 ? -1 : 0;
}

/* A tmpfs file holding what path holds now (the same size to copy). */
static int twin(const struct fc *fc, const char *path, const char *name, char *out, size_t cap)
{
    char buf[4096];
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf)) : -1;

    if (fd >= 0)
        close(fd);
    snprintf(out, cap, "%s/%s", fc->dir, name);
    int w = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (n < 0 || w < 0 || write(w, buf, (size_t)n) != n) {
        fprintf(stderr, "bench_filecost: %s: %s\n", n < 0 ? path : out, strerror(errno));
        if (w >= 0)
            close(w);
        return -1;
    }
    close(w);
    return 0;
}

static void report(const char *key, double real, double tmpfs)
{
    double extra = real - tmpfs;

    printf("%s_real_us %.3f\n%s_tmpfs_us %.3f\n", key, real, key, tmpfs);
    printf("%s_us %.3f\n", key, extra > 0 ? extra : 0);
}

/* pread of a kept fd of path against its tmpfs twin; open+close too when open_key. */
static int pair_read(const struct fc *fc, const char *path, const char *key, const char *open_key)
{
    char tw[512];

    if (twin(fc, path, key, tw, sizeof(tw)) < 0)
        return -1;
    int a = open(path, O_RDONLY | O_CLOEXEC), b = open(tw, O_RDONLY | O_CLOEXEC);
    double ra = a >= 0 ? measure(fc, op_pread, &a) : -1, rb = b >= 0 ? measure(fc, op_pread, &b) : -1;
    if (a >= 0)
        close(a);
    if (b >= 0)
        close(b);
    if (ra < 0 || rb < 0)
        return -1;
    report(key, ra, rb);
    if (open_key) {
        ra = measure(fc, op_open, path);
        rb = measure(fc, op_open, tw);
        if (ra < 0 || rb < 0)
            return -1;
        report(open_key, ra, rb);
    }
    return 0;
}

/* A /proc listing against a tmpfs directory of as many entries. */
static int pair_list(const struct fc *fc)
{
    char tw[512], p[800];
    unsigned n = 0;
    DIR *d = opendir("/proc");
    struct dirent *e;

    snprintf(tw, sizeof(tw), "%s/list", fc->dir);
    if (!d || mkdir(tw, 0700) < 0)
        goto fail;
    while ((e = readdir(d)) != NULL) {
        snprintf(p, sizeof(p), "%s/%s", tw, e->d_name);
        if (e->d_name[0] != '.' && mkdir(p, 0700) < 0)
            goto fail;
        n++;
    }
    closedir(d);
    d = NULL;
    double ra = measure(fc, op_list, "/proc"), rb = measure(fc, op_list, tw);
    if (ra < 0 || rb < 0 || !n)
        goto fail;
    printf("proc_entries %u\n", n);
    report("dirent", ra / n, rb / n);
    return 0;
fail:
    if (d)
        closedir(d);
    fprintf(stderr, "bench_filecost: listing /proc or %s failed\n", tw);
    return -1;
}

static int pair_link(const struct fc *fc)
{
    char real[64], tw[512];

    snprintf(real, sizeof(real), "/proc/self/fd/%d", fc->pipe_fd[0]);
    snprintf(tw, sizeof(tw), "%s/link", fc->dir);
    if (symlink("/dev/dri/renderD128", tw) < 0)
        return -1;
    double ra = measure(fc, op_link, real), rb = measure(fc, op_link, tw);
    if (ra < 0 || rb < 0)
        return -1;
    report("link", ra, rb);
    return 0;
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    return remove(path);
}

static int run(struct fc *fc)
{
    char fdinfo[64];

    if (pipe(fc->pipe_fd) < 0)
        return -1;
    snprintf(fdinfo, sizeof(fdinfo), "/proc/self/fdinfo/%d", fc->pipe_fd[0]);
    if (pair_read(fc, sysfs_attr, "sysfs_read", "open") < 0 ||
        pair_read(fc, "/proc/self/stat", "proc_read", "proc_open") < 0 ||
        pair_read(fc, fdinfo, "fdinfo_read", NULL) < 0 || pair_list(fc) < 0 || pair_link(fc) < 0)
        return -1;
    return 0;
}

int main(int argc, char **argv)
{
    struct fc fc = { .ops = 5000 };
    const char *base = "/dev/shm";
    int opt, rc;

    while ((opt = getopt(argc, argv, "n:d:")) != -1) {
        char *end;
        unsigned long n = opt == 'n' ? strtoul(optarg, &end, 10) : 0;
        if (opt == 'n' && n > 0 && n <= 10000000 && !*end)
            fc.ops = (unsigned)n;
        else if (opt == 'd')
            base = optarg;
        else {
            fprintf(stderr, "usage: bench_filecost [-n OPS] [-d TMPDIR]\n");
            return 2;
        }
    }
    snprintf(fc.dir, sizeof(fc.dir), "%s/gs-filecost.XXXXXX", base);
    if (!mkdtemp(fc.dir)) {
        fprintf(stderr, "bench_filecost: %s: %s\n", fc.dir, strerror(errno));
        return 2;
    }
    printf("ops_per_batch %u\n", fc.ops);
    rc = run(&fc) < 0 ? 2 : 0;
    if (nftw(fc.dir, rm_one, 8, FTW_DEPTH | FTW_PHYS) != 0)
        rc = 2;
    return rc;
}
