/* SPDX-License-Identifier: MIT */
/*
 * drmcost.c - the DRM simulator's cost model: a library that benchmarks and
 * tests LD_PRELOAD into a process reading a drmsim tree (GPUSCOPE_SYS_ROOT,
 * GPUSCOPE_PROC_ROOT), so that each file operation on the tree costs what the
 * same operation on a real sysfs or procfs file costs over the tmpfs file the
 * tree holds. gpuscope itself knows nothing of it: the product reads plain
 * files with open/pread/readdir, and a drmsim tree on tmpfs already pays the
 * tmpfs side of each; this adds the rest as CPU time of the calling thread.
 *
 * It interposes open*, openat*, opendir, close, closedir, dup, fcntl
 * (F_DUPFD*), read, pread*, readdir*, readlinkat and remembers, per fd,
 * whether it belongs to the tree and what it is (a sysfs attribute, an hwmon
 * attribute, gpu_metrics, a client's fdinfo, another /proc file, a
 * directory). Off (a pass-through) unless GPUSCOPE_SIM_DRM_COST_US is a
 * number above 0. The figures and where they come from: docs/SIMULATOR.md,
 * "The DRM tree's cost model".
 */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "drmcost.h"

enum dc_kind {   /* what an fd of the tree is (0: not the tree's) */
    DK_NONE,
    DK_SYS_DIR,  /* a directory of the sysfs tree (or an O_PATH handle) */
    DK_HWMON_DIR,
    DK_PROC_DIR,
    DK_FDINFO_DIR,
    DK_FILE,     /* a file; its class is in cls[] */
};

#define DC_MAX_FD 65536 /* fds at or above it are never the tree's (nothing is charged) */

static struct {
    int on;
    double us[GS_DRMCOST__N];
    double iters_per_us;
    char sys_root[4096], proc_root[4096];
    size_t sys_len, proc_len;
    unsigned char kind[DC_MAX_FD], cls[DC_MAX_FD];
    unsigned long long count[GS_DRMCOST__N]; /* operations charged, per class */
    int (*openat)(int, const char *, int, ...);
    int (*close)(int);
    int (*dup)(int);
    int (*fcntl)(int, int, ...);
    ssize_t (*read)(int, void *, size_t);
    ssize_t (*pread)(int, void *, size_t, off_t);
    struct dirent *(*readdir)(DIR *);
    DIR *(*opendir)(const char *);
    int (*closedir)(DIR *);
    ssize_t (*readlinkat)(int, const char *, char *, size_t);
} dc;
static pthread_once_t dc_once = PTHREAD_ONCE_INIT;

/* ---- spending ----------------------------------------------------------------------- */

static volatile unsigned dc_sink;

static void dc_spin(unsigned long n)
{
    for (unsigned long i = 0; i < n; i++)
        dc_sink = dc_sink * 1664525u + 1013904223u;
}

static double dc_thread_us(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

/* Loop iterations a microsecond of CPU buys: figures below DC_CLOCKED_US are
 * spent as a counted loop, since reading the thread's CPU clock is itself a
 * system call of about a microsecond. The fastest of five tries. */
static void dc_calibrate(void)
{
    double best = 0;

    for (int t = 0; t < 5; t++) {
        double t0 = dc_thread_us();
        dc_spin(200000);
        double dt = dc_thread_us() - t0;
        if (dt > 0 && 200000 / dt > best)
            best = 200000 / dt;
    }
    dc.iters_per_us = best > 0 ? best : 100;
}

#define DC_CLOCKED_US 5.0 /* from here on a figure is spent on the clock, not a counted loop */

static void dc_spend(enum gs_drmcost_class k)
{
    if (k >= GS_DRMCOST__N)
        return; /* a file of the tree that no kernel file stands behind */
    double us = dc.us[k];

    __atomic_fetch_add(&dc.count[k], 1, __ATOMIC_RELAXED);
    if (us <= 0)
        return;
    if (us < DC_CLOCKED_US) {
        dc_spin((unsigned long)(us * dc.iters_per_us + 0.5));
        return;
    }
    /* larger figures on the thread's CPU clock itself: a loop calibrated once runs short
     * when the CPU is faster than it was at calibration */
    double end = dc_thread_us() + us;
    while (dc_thread_us() < end)
        dc_spin(64);
}

/* GPUSCOPE_SIM_DRM_COST_STATS=FILE: at exit, "VARIABLE operations" per class into FILE
 * (bench/drm.sh prints operations per snapshot from it). */
__attribute__((destructor)) static void dc_stats(void)
{
    const char *path = getenv("GPUSCOPE_SIM_DRM_COST_STATS");

    if (!dc.on || !path || !*path)
        return;
    FILE *f = fopen(path, "we");
    if (!f)
        return;
    for (int k = 0; k < GS_DRMCOST__N; k++)
        fprintf(f, "%s %llu\n", gs_drmcost_env_name((enum gs_drmcost_class)k), dc.count[k]);
    fclose(f);
}

/* ---- setup -------------------------------------------------------------------------- */

static void dc_root(const char *var, const char *sub, char *out, size_t cap, size_t *len)
{
    const char *v = getenv(var);
    size_t n = v ? strlen(v) : 0;

    while (n > 1 && v[n - 1] == '/')
        n--; /* "tree/" and "tree" are one root */
    if (n && n < cap)
        snprintf(out, cap, "%.*s%s", (int)n, v, sub);
    else
        out[0] = '\0';
    *len = strlen(out);
}

static void dc_setup(void)
{
    dc.openat = (int (*)(int, const char *, int, ...))dlsym(RTLD_NEXT, "openat");
    dc.close = (int (*)(int))dlsym(RTLD_NEXT, "close");
    dc.dup = (int (*)(int))dlsym(RTLD_NEXT, "dup");
    dc.fcntl = (int (*)(int, int, ...))dlsym(RTLD_NEXT, "fcntl");
    dc.read = (ssize_t(*)(int, void *, size_t))dlsym(RTLD_NEXT, "read");
    dc.pread = (ssize_t(*)(int, void *, size_t, off_t))dlsym(RTLD_NEXT, "pread");
    dc.readdir = (struct dirent * (*)(DIR *)) dlsym(RTLD_NEXT, "readdir");
    dc.opendir = (DIR * (*)(const char *)) dlsym(RTLD_NEXT, "opendir");
    dc.closedir = (int (*)(DIR *))dlsym(RTLD_NEXT, "closedir");
    dc.readlinkat = (ssize_t(*)(int, const char *, char *, size_t))dlsym(RTLD_NEXT, "readlinkat");
    if (gs_drmcost_figures(dc.us) <= 0)
        return;
    dc_root("GPUSCOPE_SYS_ROOT", "/sys", dc.sys_root, sizeof(dc.sys_root), &dc.sys_len);
    dc_root("GPUSCOPE_PROC_ROOT", "", dc.proc_root, sizeof(dc.proc_root), &dc.proc_len);
    dc_calibrate();
    __atomic_store_n(&dc.on, 1, __ATOMIC_RELEASE);
}

static int dc_ready(void)
{
    pthread_once(&dc_once, dc_setup);
    return __atomic_load_n(&dc.on, __ATOMIC_ACQUIRE);
}

/* ---- classifying -------------------------------------------------------------------- */

static int dc_under(const char *path, const char *root, size_t len)
{
    return len && strncmp(path, root, len) == 0 && (path[len] == '/' || path[len] == '\0');
}

static const char *dc_base(const char *path)
{
    const char *s = strrchr(path, '/');

    return s ? s + 1 : path;
}

static int dc_is_hwmon_name(const char *name)
{
    if (strncmp(name, "hwmon", 5) != 0 || !name[5])
        return 0;
    for (const char *p = name + 5; *p; p++)
        if (*p < '0' || *p > '9')
            return 0;
    return 1;
}

/* What path (opened relative to an fd of kind parent, or absolute) is. */
static void dc_classify(int parent, const char *path, int flags, unsigned char *kind, unsigned char *cls)
{
    int proc = parent == DK_PROC_DIR || parent == DK_FDINFO_DIR ||
               (path[0] == '/' && dc_under(path, dc.proc_root, dc.proc_len));
    const char *base = dc_base(path);
    int dir = (flags & (O_DIRECTORY | O_PATH)) != 0;

    *cls = GS_DRMCOST_NONE;
    if (proc) {
        int fdinfo = parent == DK_FDINFO_DIR || strstr(path, "fdinfo/") != NULL;
        *kind = dir ? (strcmp(base, "fdinfo") == 0 ? DK_FDINFO_DIR : DK_PROC_DIR) : DK_FILE;
        if (!dir)
            *cls = fdinfo ? GS_DRMCOST_FDINFO : GS_DRMCOST_PROC;
        return;
    }
    if (dir) {
        *kind = dc_is_hwmon_name(base) ? DK_HWMON_DIR : DK_SYS_DIR;
        return;
    }
    *kind = DK_FILE;
    if (base[0] == '.')
        return; /* drmsim's own marker: no kernel file */
    if (strcmp(base, "gpu_metrics") == 0)
        *cls = GS_DRMCOST_METRICS;
    else if (parent == DK_HWMON_DIR || strstr(path, "/hwmon/hwmon") || strncmp(path, "hwmon/hwmon", 11) == 0)
        *cls = GS_DRMCOST_HWMON;
    else
        *cls = GS_DRMCOST_SYSFS;
}

static int dc_kind_of(int fd)
{
    return fd >= 0 && fd < DC_MAX_FD ? __atomic_load_n(&dc.kind[fd], __ATOMIC_RELAXED) : DK_NONE;
}

static void dc_mark(int fd, unsigned char kind, unsigned char cls)
{
    if (fd >= 0 && fd < DC_MAX_FD) {
        __atomic_store_n(&dc.cls[fd], cls, __ATOMIC_RELAXED);
        __atomic_store_n(&dc.kind[fd], kind, __ATOMIC_RELAXED);
    }
}

/* After an open of path relative to dirfd returned fd: mark it, charge the open. */
static void dc_opened(int fd, int dirfd, const char *path, int flags)
{
    int parent = path[0] == '/' ? DK_NONE : dc_kind_of(dirfd);
    unsigned char kind, cls;

    if (fd < 0 || !path)
        return;
    if (parent == DK_NONE && !(path[0] == '/' && (dc_under(path, dc.sys_root, dc.sys_len) ||
                                                  dc_under(path, dc.proc_root, dc.proc_len)))) {
        dc_mark(fd, DK_NONE, GS_DRMCOST_NONE);
        return;
    }
    dc_classify(parent, path, flags, &kind, &cls);
    dc_mark(fd, kind, cls);
    if (!(flags & O_PATH) && !(kind == DK_FILE && cls == GS_DRMCOST_NONE))
        dc_spend(parent == DK_PROC_DIR || parent == DK_FDINFO_DIR || dc_under(path, dc.proc_root, dc.proc_len)
                     ? GS_DRMCOST_PROC_OPEN
                     : GS_DRMCOST_OPEN);
}

static void dc_charge_read(int fd)
{
    if (dc_kind_of(fd) == DK_FILE)
        dc_spend((enum gs_drmcost_class)__atomic_load_n(&dc.cls[fd], __ATOMIC_RELAXED));
}

/* ---- the interposed calls ----------------------------------------------------------- */

static int dc_openat_impl(int dirfd, const char *path, int flags, mode_t mode)
{
    int on = dc_ready();
    int fd = dc.openat(dirfd, path, flags, mode);

    if (on)
        dc_opened(fd, dirfd, path, flags);
    return fd;
}

/* The mode argument an open(2) with these flags carries (the va_list is started by the caller). */
static mode_t dc_open_mode(int flags, va_list ap)
{
    return (flags & (O_CREAT | __O_TMPFILE)) ? (mode_t)va_arg(ap, int) : 0;
}

int open(const char *path, int flags, ...)
{
    va_list ap;

    va_start(ap, flags);
    mode_t mode = dc_open_mode(flags, ap);
    va_end(ap);
    return dc_openat_impl(AT_FDCWD, path, flags, mode);
}

int openat(int dirfd, const char *path, int flags, ...)
{
    va_list ap;

    va_start(ap, flags);
    mode_t mode = dc_open_mode(flags, ap);
    va_end(ap);
    return dc_openat_impl(dirfd, path, flags, mode);
}

int open64(const char *path, int flags, ...) __attribute__((alias("open")));
int openat64(int dirfd, const char *path, int flags, ...) __attribute__((alias("openat")));

int close(int fd)
{
    int on = dc_ready();

    if (on)
        dc_mark(fd, DK_NONE, GS_DRMCOST_NONE);
    return dc.close(fd);
}

int dup(int fd)
{
    int on = dc_ready();
    int nfd = dc.dup(fd);

    if (on && nfd >= 0 && fd >= 0 && fd < DC_MAX_FD)
        dc_mark(nfd, dc.kind[fd], dc.cls[fd]);
    return nfd;
}

int fcntl(int fd, int cmd, ...)
{
    va_list ap;
    va_start(ap, cmd);
    void *arg = va_arg(ap, void *); /* every fcntl argument is an int or a pointer */
    va_end(ap);
    int on = dc_ready();
    int r = dc.fcntl(fd, cmd, arg);

    if (on && r >= 0 && (cmd == F_DUPFD || cmd == F_DUPFD_CLOEXEC) && fd >= 0 && fd < DC_MAX_FD)
        dc_mark(r, dc.kind[fd], dc.cls[fd]);
    return r;
}

int fcntl64(int fd, int cmd, ...) __attribute__((alias("fcntl")));

ssize_t read(int fd, void *buf, size_t n)
{
    if (dc_ready())
        dc_charge_read(fd);
    return dc.read(fd, buf, n);
}

ssize_t pread(int fd, void *buf, size_t n, off_t off)
{
    if (dc_ready())
        dc_charge_read(fd);
    return dc.pread(fd, buf, n, off);
}

ssize_t pread64(int fd, void *buf, size_t n, off_t off) __attribute__((alias("pread")));

DIR *opendir(const char *path)
{
    int on = dc_ready();
    DIR *d = dc.opendir(path);

    if (on && d)
        dc_opened(dirfd(d), AT_FDCWD, path, O_RDONLY | O_DIRECTORY);
    return d;
}

/* closedir closes its fd inside libc, past close() above: forget the fd here. */
int closedir(DIR *d)
{
    if (dc_ready())
        dc_mark(dirfd(d), DK_NONE, GS_DRMCOST_NONE);
    return dc.closedir(d);
}

struct dirent *readdir(DIR *d)
{
    int on = dc_ready();
    struct dirent *e = dc.readdir(d);

    if (on && e && dc_kind_of(dirfd(d)) != DK_NONE)
        dc_spend(GS_DRMCOST_DIRENT);
    return e;
}

/* On 64-bit glibc, struct dirent64 is struct dirent. */
struct dirent64 *readdir64(DIR *d)
{
    return (struct dirent64 *)(void *)readdir(d);
}

ssize_t readlinkat(int dirfd, const char *path, char *buf, size_t n)
{
    int on = dc_ready();

    if (on && (path[0] == '/' ? dc_under(path, dc.proc_root, dc.proc_len) || dc_under(path, dc.sys_root, dc.sys_len)
                              : dc_kind_of(dirfd) != DK_NONE))
        dc_spend(GS_DRMCOST_LINK);
    return dc.readlinkat(dirfd, path, buf, n);
}
