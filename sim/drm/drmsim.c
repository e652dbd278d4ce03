/* SPDX-License-Identifier: MIT */
/*
 * drmsim.c - gpuscope's DRM simulator (see drmsim.h): lays out a sysfs +
 * procfs tree for AMD and Intel GPUs from a scenario and keeps it moving.
 *
 *   drmsim --root DIR [--scenario NAME|FILE] --at SECONDS     write the tree for t and exit
 *   drmsim --root DIR [--scenario NAME|FILE] [--clock SPEC] [--interval-ms N] [--die-with-parent] [--cleanup]
 *                                                             keep it current until SIGTERM
 *                                                             (--cleanup: then remove the tree)
 * SPEC is the NVML simulator's: real (t = seconds since start), fixed:T,
 * file:PATH (t read from the file). Then point gpuscope at the tree:
 * GPUSCOPE_SYS_ROOT=DIR GPUSCOPE_PROC_ROOT=DIR/proc. In the second form a
 * line "ready" on stdout says the first tree is complete.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "drmsim.h"

static volatile sig_atomic_t ds_stop;

static void on_signal(int sig)
{
    (void)sig;
    ds_stop = 1;
}

/* NAME -> $GPUSCOPE_SIM_SCENARIO_DIR/NAME.drm, or beside this binary in a
 * build tree (build/sim/drmsim -> sim/scenarios), or the install tree. */
static int ds_locate(const char *name, char *out, size_t cap)
{
    char self[PATH_MAX];
    const char *dir = getenv("GPUSCOPE_SIM_SCENARIO_DIR");
    struct stat st;

    if (strchr(name, '/') || strstr(name, ".drm")) {
        snprintf(out, cap, "%s", name);
        return 0;
    }
    if (dir && snprintf(out, cap, "%s/%s.drm", dir, name) < (int)cap && stat(out, &st) == 0)
        return 0;
    ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
    if (n > 0) {
        self[n] = '\0';
        char *slash = strrchr(self, '/');
        if (slash)
            *slash = '\0';
        const char *rel[] = { "/../../sim/scenarios", "/../../share/gpuscope/scenarios", "/../../../share/gpuscope/scenarios" };
        for (size_t i = 0; i < sizeof(rel) / sizeof(rel[0]); i++)
            if (snprintf(out, cap, "%s%s/%s.drm", self, rel[i], name) < (int)cap && stat(out, &st) == 0)
                return 0;
    }
    snprintf(out, cap, "%s/share/gpuscope/scenarios/%s.drm", GS_PREFIX, name);
    return stat(out, &st) == 0 ? 0 : -1;
}

struct ds_opts {
    const char *root, *scenario, *clock;
    double at;
    bool once, die_with_parent, cleanup;
    unsigned interval_ms;
};

static void usage(FILE *f)
{
    fprintf(f, "usage: drmsim --root DIR [--scenario NAME|FILE] (--at SECONDS | [--clock real|fixed:T|file:PATH]"
               " [--interval-ms N] [--die-with-parent] [--cleanup])\n");
}

static int parse_args(int argc, char **argv, struct ds_opts *o)
{
    *o = (struct ds_opts){ NULL, "mixed", NULL, 0, false, false, false, 100 };
    o->clock = getenv("GPUSCOPE_SIM_CLOCK");
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            exit(0);
        }
        if (!strcmp(a, "--die-with-parent") || !strcmp(a, "--cleanup")) {
            if (a[2] == 'd')
                o->die_with_parent = true;
            else
                o->cleanup = true;
            continue;
        }
        if (!v) {
            fprintf(stderr, "drmsim: %s wants a value\n", a);
            return -1;
        }
        i++;
        if (!strcmp(a, "--root"))
            o->root = v;
        else if (!strcmp(a, "--scenario"))
            o->scenario = v;
        else if (!strcmp(a, "--clock"))
            o->clock = v;
        else if (!strcmp(a, "--at"))
            o->at = strtod(v, NULL), o->once = true;
        else if (!strcmp(a, "--interval-ms"))
            o->interval_ms = (unsigned)strtoul(v, NULL, 10);
        else {
            fprintf(stderr, "drmsim: unknown option %s\n", a);
            return -1;
        }
    }
    if (!o->root) {
        usage(stderr);
        return -1;
    }
    return 0;
}

static double mono_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The scenario time now, by the clock spec; false when a file clock is unreadable. */
static bool clock_now(const char *spec, double t0, double *t)
{
    if (!spec || !*spec || !strcmp(spec, "real")) {
        *t = floor((mono_s() - t0) * 1000.0) / 1000.0; /* 1 ms steps, as the NVML simulator */
        return true;
    }
    if (!strncmp(spec, "fixed:", 6)) {
        *t = strtod(spec + 6, NULL);
        return true;
    }
    if (!strncmp(spec, "file:", 5)) {
        char buf[64];
        int fd = open(spec + 5, O_RDONLY | O_CLOEXEC);
        ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;
        if (fd >= 0)
            close(fd);
        if (n <= 0)
            return false;
        buf[n] = '\0';
        *t = strtod(buf, NULL);
        return true;
    }
    return false;
}

static int run(struct ds_scn *s, const struct ds_opts *o)
{
    s->interval_ms = o->interval_ms ? o->interval_ms : 1;
    double t0 = mono_s(), t, last = NAN;
    bool announced = false;

    signal(SIGTERM, on_signal);
    signal(SIGINT, on_signal);
    signal(SIGHUP, on_signal);
    if (o->die_with_parent)
        prctl(PR_SET_PDEATHSIG, SIGTERM); /* a demo's tree goes when its gpuscope does */
    char marker[PATH_MAX];
    int lock_fd = -1;

    snprintf(marker, sizeof(marker), "%s/sys/class/drm/.gpuscope-sim", o->root);
    while (!ds_stop) {
        if (clock_now(o->clock, t0, &t) && t != last) {
            /* readers that compute rates hold a shared lock while they read */
            if (lock_fd < 0)
                lock_fd = open(marker, O_RDONLY | O_CLOEXEC);
            if (lock_fd >= 0)
                flock(lock_fd, LOCK_EX);
            int rc = ds_write(s, o->root, t);
            if (lock_fd >= 0)
                flock(lock_fd, LOCK_UN);
            if (rc < 0) {
                fprintf(stderr, "drmsim: writing %s: %s\n", o->root, strerror(errno));
                return 1;
            }
            last = t;
        }
        if (!announced && !isnan(last)) {
            printf("ready\n");
            fflush(stdout);
            announced = true;
        }
        struct timespec d = { (time_t)(o->interval_ms / 1000), (long)(o->interval_ms % 1000) * 1000000L };
        nanosleep(&d, NULL);
    }
    if (lock_fd >= 0)
        close(lock_fd);
    return 0;
}

int main(int argc, char **argv)
{
    static struct ds_scn s;
    struct ds_opts o;
    char path[PATH_MAX], err[GS_SCN_ERR_LEN + 64];

    if (parse_args(argc, argv, &o) < 0)
        return 2;
    if (ds_locate(o.scenario, path, sizeof(path)) < 0) {
        fprintf(stderr, "drmsim: scenario '%s' not found (set GPUSCOPE_SIM_SCENARIO_DIR, or give a path)\n",
                o.scenario);
        return 2;
    }
    if (ds_parse_file(&s, path, err, sizeof(err)) < 0) {
        fprintf(stderr, "drmsim: %s\n", err);
        ds_free(&s);
        return 2;
    }
    if (mkdir(o.root, 0755) < 0 && errno != EEXIST) {
        fprintf(stderr, "drmsim: %s: %s\n", o.root, strerror(errno));
        ds_free(&s);
        return 1;
    }
    int rc = 0;
    if (o.once) {
        if (ds_write(&s, o.root, o.at) < 0) {
            fprintf(stderr, "drmsim: writing %s: %s\n", o.root, strerror(errno));
            rc = 1;
        }
    } else {
        rc = run(&s, &o);
        if (o.cleanup) { /* the tree was ours alone (gpuscope --demo's private directory) */
            ds_rmtree(o.root, "sys");
            ds_rmtree(o.root, "proc");
            ds_rmtree(o.root, "usr");
            rmdir(o.root);
        }
    }
    ds_free(&s);
    return rc;
}
