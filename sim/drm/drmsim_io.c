/* SPDX-License-Identifier: MIT */
/*
 * drmsim_io.c - writing the simulated tree: files rewritten in place (a
 * reader's kept fd sees the new text, as with sysfs), symlinks, removal,
 * and the integrals that turn rates into the kernel's counters.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "drmsim.h"

#define DS_STEP 0.01 /* integration step, s: exact for values that change on a 10 ms grid */

double ds_eval(const struct gs_scn_expr *e, double t, unsigned salt)
{
    struct gs_scn_env env = { NULL, salt, 0 };
    return e ? gs_scn_eval(e, t, &env) : 0;
}

/* mkdir -p of path's parent directories. */
static int ds_mkparents(char *path)
{
    for (char *p = path + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        int rc = mkdir(path, 0755);
        *p = '/';
        if (rc < 0 && errno != EEXIST)
            return -1;
    }
    return 0;
}

int ds_put(const char *root, const char *rel, const char *text, size_t len)
{
    char path[1024];
    int fd;

    if (snprintf(path, sizeof(path), "%s/%s", root, rel) >= (int)sizeof(path))
        return errno = ENAMETOOLONG, -1;
    fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0 && errno == ENOENT && ds_mkparents(path) == 0)
        fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0)
        return -1;
    /* new text first, then cut: a reader never sees the file empty */
    ssize_t n = pwrite(fd, text, len, 0);
    int rc = n == (ssize_t)len && ftruncate(fd, (off_t)len) == 0 ? 0 : -1;
    close(fd);
    return rc;
}

int ds_putf(const char *root, const char *rel, const char *fmt, ...)
{
    char buf[8192];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    if (n < 0 || n >= (int)sizeof(buf))
        return errno = EOVERFLOW, -1;
    return ds_put(root, rel, buf, (size_t)n);
}

int ds_link(const char *root, const char *rel, const char *target)
{
    char path[1024], have[512];

    if (snprintf(path, sizeof(path), "%s/%s", root, rel) >= (int)sizeof(path))
        return errno = ENAMETOOLONG, -1;
    ssize_t n = readlink(path, have, sizeof(have) - 1);
    if (n >= 0) {
        have[n] = '\0';
        if (!strcmp(have, target))
            return 0;
        unlink(path);
    }
    if (symlink(target, path) == 0)
        return 0;
    if (errno != ENOENT || ds_mkparents(path) < 0)
        return -1;
    return symlink(target, path);
}

static int ds_rm_at(int dfd, const char *name)
{
    struct stat st;
    if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
        return errno == ENOENT ? 0 : -1;
    if (!S_ISDIR(st.st_mode))
        return unlinkat(dfd, name, 0);
    int sub = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR *d = sub >= 0 ? fdopendir(sub) : NULL;
    struct dirent *e;
    if (!d)
        return -1;
    while ((e = readdir(d)) != NULL)
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
            ds_rm_at(dirfd(d), e->d_name);
    closedir(d);
    return unlinkat(dfd, name, AT_REMOVEDIR);
}

int ds_rmtree(const char *root, const char *rel)
{
    int dfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0)
        return -1;
    int rc = ds_rm_at(dfd, rel);
    close(dfd);
    return rc;
}

/* One integration step [t0, t0 + h) for every counter. */
static void ds_step(struct ds_scn *s, double t0, double h)
{
    for (int i = 0; i < s->ncards; i++) {
        struct ds_card *k = &s->cards[i];
        if (!k->defined)
            continue;
        if (k->num[DN_ENERGY_POWER])
            k->energy_uj += ds_eval(k->num[DN_ENERGY_POWER], t0, (unsigned)i) * 1000.0 * h; /* mW -> uJ */
        if (k->num[DN_RC6])
            k->rc6_ms += ds_eval(k->num[DN_RC6], t0, (unsigned)i) / 100.0 * 1000.0 * h;
    }
    for (int i = 0; i < s->nprocs; i++) {
        struct ds_proc *p = &s->procs[i];
        if (p->cpu && t0 >= p->start && t0 < p->exit)
            p->cpu_ticks += ds_eval(p->cpu, t0, p->pid) / 100.0 * 100.0 * h;
    }
    for (int i = 0; i < s->nclients; i++) {
        struct ds_client *c = &s->clients[i];
        if (c->dup || t0 < c->start || t0 >= c->exit)
            continue;
        for (int e = 0; e < DS_ENGINES; e++) {
            double pct = c->eng[e] ? ds_eval(c->eng[e], t0, c->pid * 31u + (unsigned)e) : 0;
            c->busy_ns[e] += (pct < 0 ? 0 : pct > 100 ? 100 : pct) / 100.0 * 1e9 * h;
        }
    }
}

static void ds_reset(struct ds_scn *s)
{
    for (int i = 0; i < s->ncards; i++)
        s->cards[i].energy_uj = s->cards[i].rc6_ms = 0;
    for (int i = 0; i < s->nprocs; i++)
        s->procs[i].cpu_ticks = 0;
    for (int i = 0; i < s->nclients; i++)
        memset(s->clients[i].busy_ns, 0, sizeof(s->clients[i].busy_ns));
    s->integrated_to = 0;
}

void ds_integrate(struct ds_scn *s, double t)
{
    if (t < s->integrated_to)
        ds_reset(s);
    /* step to each grid point in turn (a partial step first when the previous
     * write ended between two), then the partial last one: each step lies in
     * one grid cell, where a value that changes on the grid is constant */
    while (s->integrated_to < t - 1e-12) {
        double next = (floor(s->integrated_to / DS_STEP + 1e-9) + 1) * DS_STEP;
        if (next > t)
            next = t;
        ds_step(s, s->integrated_to, next - s->integrated_to);
        s->integrated_to = next;
    }
}

/* The marker: simulated, which scenario, the instant the files describe.
 * Fixed width, so a rewrite in place never leaves a tail. */
static int ds_marker(const struct ds_scn *s, const char *root, unsigned long long seq, double t)
{
    return ds_putf(root, "sys/class/drm/.gpuscope-sim", "name=%s\nseq=%020llu\nt_ns=%020llu\ninterval_ms=%010u\n",
                   s->name, seq, (unsigned long long)llround(t * 1e9), s->interval_ms);
}

int ds_write(struct ds_scn *s, const char *root, double t)
{
    static unsigned long long seq;
    int rc;

    ds_integrate(s, t);
    rc = ds_marker(s, root, seq * 2 + 1, t);
    rc |= ds_write_cards(s, root, t);
    rc |= ds_write_procs(s, root, t);
    rc |= ds_marker(s, root, ++seq * 2, t);
    return rc ? -1 : 0;
}
