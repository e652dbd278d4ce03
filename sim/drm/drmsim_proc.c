/* SPDX-License-Identifier: MIT */
/*
 * drmsim_proc.c - the simulated /proc: every scenario process with stat,
 * status, cmdline, comm, cgroup, statm, an fd directory (a few ordinary fds,
 * and its DRM fds as links to /dev/dri/renderDN) and the DRM fds' fdinfo in
 * each driver's own format:
 *   amdgpu  amdgpu_fdinfo.c + drm_file.c's drm_print_memory_stats(): pasid,
 *           drm-{total,shared,active,resident,purgeable}-{vram,gtt,cpu}, the
 *           legacy drm-memory-* in KiB, amd-*, drm-engine-<ip> for busy IPs only;
 *   i915    Documentation/gpu/i915.rst: every engine class in ns, capacity for
 *           video, regions system0 / local0 / stolen-*;
 *   xe      xe_drm_client.c's documented example: drm-cycles-* and
 *           drm-total-cycles-* per class with capacities, regions system,
 *           gtt, vram0, stolen.
 * Sizes are printed as the kernel's drm_fdinfo_print_size() does (bytes,
 * else KiB or MiB while they divide evenly).
 */
#include <dirent.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "drmsim.h"

/* The tree's relative paths are a few dozen bytes, built from short fixed parts
 * into buffers of hundreds: GCC cannot see that, so its truncation warning goes. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wformat-truncation"
#endif

#define DS_BOOT_TICKS 100000ull    /* processes start 1000 s after boot, plus their start= */
#define DS_XE_TS_HZ 19200000.0     /* xe's GPU timestamp (drm-total-cycles) rate */

static const char *const xe_keys[DS_ENGINES] = { "rcs", "bcs", "vcs", "vecs", "ccs" };
static const char *const i915_keys[DS_ENGINES] = { "render", "copy", "video", "video-enhance", "compute" };
static const char *const amd_keys[DS_ENGINES] = { "gfx", "compute", "dma", "dec", "enc", "jpeg", "enc_1", "vpe" };
static const unsigned xe_capacity[DS_ENGINES] = { 1, 1, 2, 1, 1 };
static const unsigned i915_capacity[DS_ENGINES] = { 1, 1, 2, 1, 1 };

/* ---- text helpers -------------------------------------------------------------------- */

struct ds_buf {
    char b[8192];
    size_t n;
};

static void bf(struct ds_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void bf(struct ds_buf *b, const char *fmt, ...)
{
    va_list ap;
    if (b->n >= sizeof(b->b))
        return;
    va_start(ap, fmt);
    int n = vsnprintf(b->b + b->n, sizeof(b->b) - b->n, fmt, ap);
    va_end(ap);
    if (n > 0)
        b->n += (size_t)n < sizeof(b->b) - b->n ? (size_t)n : sizeof(b->b) - b->n - 1;
}

/* drm_fdinfo_print_size(): "drm-<stat>-<region>:\t<n>[ KiB| MiB]". */
static void bsize(struct ds_buf *b, const char *stat, const char *region, unsigned long long sz)
{
    static const char *const units[] = { "", " KiB", " MiB" };
    unsigned u = 0;
    while (u < 2 && sz && !(sz % 1024)) {
        sz /= 1024;
        u++;
    }
    bf(b, "drm-%s-%s:\t%llu%s\n", stat, region, sz, units[u]);
}

static void bregion(struct ds_buf *b, const char *region, unsigned long long bytes, bool resident)
{
    bsize(b, "total", region, bytes);
    bsize(b, "shared", region, 0);
    bsize(b, "active", region, 0);
    if (resident)
        bsize(b, "resident", region, bytes);
    bsize(b, "purgeable", region, 0);
}

static unsigned long long mem_at(const struct gs_scn_expr *e, double t, unsigned salt)
{
    double v = ds_eval(e, t, salt);
    return v <= 0 ? 0 : (unsigned long long)v & ~4095ull; /* whole pages */
}

/* ---- fdinfo ---------------------------------------------------------------------------- */

static void fdinfo_head(struct ds_buf *b, const struct ds_client *c, const struct ds_card *k, const char *drv)
{
    bf(b, "pos:\t0\nflags:\t02100002\nmnt_id:\t26\nino:\t%u\n", 1000 + (unsigned)c->fd);
    bf(b, "drm-driver:\t%s\n", drv);
    bf(b, "drm-client-id:\t%llu\n", c->id);
    bf(b, "drm-pdev:\t%s\n", k->pci);
    if (c->name)
        bf(b, "drm-client-name:\t%s\n", c->name);
}

static void fdinfo_amdgpu(struct ds_buf *b, const struct ds_client *c, const struct ds_card *k, double t)
{
    unsigned long long vram = mem_at(c->dev_mem, t, c->pid), gtt = mem_at(c->sys_mem, t, c->pid + 1);

    fdinfo_head(b, c, k, "amdgpu");
    bf(b, "pasid:\t%u\n", 32768 + (unsigned)c->id);
    bregion(b, "vram", vram, true);
    bregion(b, "gtt", gtt, true);
    bregion(b, "cpu", 0, true);
    bf(b, "drm-memory-vram:\t%llu KiB\ndrm-memory-gtt: \t%llu KiB\ndrm-memory-cpu: \t0 KiB\n", vram / 1024, gtt / 1024);
    bf(b, "amd-evicted-vram:\t0 KiB\namd-requested-vram:\t%llu KiB\namd-requested-gtt:\t%llu KiB\n", vram / 1024,
       gtt / 1024);
    for (int e = 0; e < DS_ENGINES; e++)
        if ((unsigned long long)c->busy_ns[e])
            bf(b, "drm-engine-%s:\t%llu ns\n", amd_keys[e], (unsigned long long)c->busy_ns[e]);
}

static void fdinfo_i915(struct ds_buf *b, const struct ds_client *c, const struct ds_card *k, double t, bool discrete)
{
    fdinfo_head(b, c, k, "i915");
    bregion(b, "system0", mem_at(c->sys_mem, t, c->pid + 1), true);
    bregion(b, "stolen-system0", 0, true);
    if (discrete)
        bregion(b, "local0", mem_at(c->dev_mem, t, c->pid), true);
    for (int e = 0; e < 5; e++) {
        bf(b, "drm-engine-%s:\t%llu ns\n", i915_keys[e], (unsigned long long)(c->busy_ns[e] * i915_capacity[e]));
        if (i915_capacity[e] > 1)
            bf(b, "drm-engine-capacity-%s:\t%u\n", i915_keys[e], i915_capacity[e]);
    }
}

static void fdinfo_xe(struct ds_buf *b, const struct ds_client *c, const struct ds_card *k, double t)
{
    unsigned long long total = (unsigned long long)(t * DS_XE_TS_HZ);

    fdinfo_head(b, c, k, "xe");
    bregion(b, "system", 0, true);
    bregion(b, "gtt", mem_at(c->sys_mem, t, c->pid + 1), true);
    bregion(b, "vram0", mem_at(c->dev_mem, t, c->pid), true);
    bregion(b, "stolen", 0, true);
    for (int e = 0; e < 5; e++) {
        unsigned long long cyc = (unsigned long long)(c->busy_ns[e] * xe_capacity[e] * DS_XE_TS_HZ / 1e9);
        bf(b, "drm-cycles-%s:\t%llu\ndrm-total-cycles-%s:\t%llu\n", xe_keys[e], cyc, xe_keys[e], total);
        if (xe_capacity[e] > 1)
            bf(b, "drm-engine-capacity-%s:\t%u\n", xe_keys[e], xe_capacity[e]);
    }
}

/* ---- processes ------------------------------------------------------------------------- */

static const struct ds_proc *proc_of(const struct ds_scn *s, unsigned pid)
{
    for (int i = 0; i < s->nprocs; i++)
        if (s->procs[i].pid == pid)
            return &s->procs[i];
    return NULL;
}

static bool alive(const struct ds_proc *p, unsigned pid, double t)
{
    (void)pid;
    return !p || (t >= p->start && t < p->exit);
}

static int write_cmdline(const char *root, unsigned pid, const char *cmdline, const char *comm)
{
    char rel[64], buf[1024];
    size_t n = 0;
    const char *src = cmdline ? cmdline : comm;

    for (const char *p = src; *p && n + 1 < sizeof(buf); p++)
        buf[n++] = *p == ' ' ? '\0' : *p;
    buf[n++] = '\0';
    snprintf(rel, sizeof(rel), "proc/%u/cmdline", pid);
    return ds_put(root, rel, buf, n);
}

static int write_proc_files(const struct ds_proc *p, unsigned pid, const char *root, double t)
{
    char rel[64];
    const char *comm = p ? p->comm : "client";
    unsigned uid = p ? p->uid : 0, ppid = p ? p->ppid : 1;
    unsigned long long ticks = p ? (unsigned long long)p->cpu_ticks : 0;
    unsigned long long rss = p && p->rss ? (unsigned long long)(ds_eval(p->rss, t, pid) / 4096.0) : 2560;
    unsigned long long start = DS_BOOT_TICKS + (unsigned long long)((p ? p->start : 0) * 100.0);
    int rc = 0;

    snprintf(rel, sizeof(rel), "proc/%u/stat", pid);
    rc |= ds_putf(root, rel,
                  "%u (%s) S %u %u %u 0 -1 4194560 1000 0 0 0 %llu %llu 0 0 20 0 4 0 %llu 123456789 %llu "
                  "18446744073709551615 1 1 0 0 0 0 0 16781312 16390 0 0 0 17 3 0 0 0 0 0\n",
                  pid, comm, ppid, pid, pid, ticks - ticks / 5, ticks / 5, start, rss);
    snprintf(rel, sizeof(rel), "proc/%u/status", pid);
    rc |= ds_putf(root, rel,
                  "Name:\t%s\nUmask:\t0022\nState:\tS (sleeping)\nTgid:\t%u\nNgid:\t0\nPid:\t%u\nPPid:\t%u\n"
                  "TracerPid:\t0\nUid:\t%u\t%u\t%u\t%u\nGid:\t%u\t%u\t%u\t%u\nFDSize:\t64\nVmRSS:\t%llu kB\n"
                  "Threads:\t4\n",
                  comm, pid, pid, ppid, uid, uid, uid, uid, uid, uid, uid, uid, rss * 4);
    snprintf(rel, sizeof(rel), "proc/%u/statm", pid);
    rc |= ds_putf(root, rel, "123456 %llu 512 64 0 4096 0\n", rss);
    snprintf(rel, sizeof(rel), "proc/%u/comm", pid);
    rc |= ds_putf(root, rel, "%s\n", comm);
    snprintf(rel, sizeof(rel), "proc/%u/cgroup", pid);
    rc |= ds_putf(root, rel, "0::/user.slice/user-%u.slice/session-2.scope\n", uid);
    rc |= write_cmdline(root, pid, p ? p->cmdline : NULL, comm);
    /* the ordinary fds every process has: the scanner must look past them */
    static const char *const plain[] = { "/dev/null", "/dev/pts/0", "/dev/pts/0", "anon_inode:[eventfd]",
                                         "socket:[40000]", "/var/log/app.log" };
    for (int fd = 0; fd < 6; fd++) {
        snprintf(rel, sizeof(rel), "proc/%u/fd/%d", pid, fd);
        rc |= ds_link(root, rel, plain[fd]);
    }
    return rc;
}

static int write_client(const struct ds_scn *s, const struct ds_client *c, const char *root, double t)
{
    const struct ds_card *k = c->card >= 0 && c->card < s->ncards ? &s->cards[c->card] : NULL;
    const struct ds_client *src = c;
    struct ds_buf b;
    char rel[64], tgt[64];

    if (!k || !k->defined || t >= k->lost_at)
        return 0;
    if (c->dup) /* the same drm_file through another fd: the text of the line it duplicates */
        for (int i = 0; i < s->nclients; i++)
            if (!s->clients[i].dup && s->clients[i].card == c->card && s->clients[i].id == c->id)
                src = &s->clients[i];
    b.n = 0;
    if (k->drv == DS_AMDGPU)
        fdinfo_amdgpu(&b, src, k, t);
    else if (k->drv == DS_I915)
        fdinfo_i915(&b, src, k, t, src->dev_mem != NULL);
    else
        fdinfo_xe(&b, src, k, t);
    snprintf(rel, sizeof(rel), "proc/%u/fd/%d", c->pid, c->fd);
    snprintf(tgt, sizeof(tgt), "/dev/dri/renderD%d", k->render_minor);
    int rc = ds_link(root, rel, tgt);
    snprintf(rel, sizeof(rel), "proc/%u/fdinfo/%d", c->pid, c->fd);
    rc |= ds_put(root, rel, b.b, b.n);
    return rc;
}

/* Cut one file of directory dfd to nothing (it may be gone already). */
static void cut_file(int dfd, const char *name)
{
    int fd = openat(dfd, name, O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return;
    if (ftruncate(fd, 0) < 0)
        perror("drmsim: ftruncate");
    close(fd);
}

/* Before a fdinfo file (or a process's whole fdinfo directory) is removed, its
 * text is cut to nothing: a reader that kept it open then reads 0 bytes, where
 * real procfs answers ENOENT or ESRCH on a kept fdinfo fd of a closed fd or an
 * exited process (a plain file would read on once unlinked). */
static void empty_fdinfo(const char *root, const char *rel, const char *name)
{
    char path[1024];
    if (snprintf(path, sizeof(path), "%s/%s", root, rel) >= (int)sizeof(path))
        return;
    int dfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR *d = dfd >= 0 && !name ? fdopendir(dfd) : NULL;
    struct dirent *e;
    if (dfd >= 0 && name)
        cut_file(dfd, name);
    if (d) {
        while ((e = readdir(d)) != NULL)
            if (e->d_name[0] != '.')
                cut_file(dirfd(d), e->d_name);
        closedir(d);
    } else if (dfd >= 0) {
        close(dfd);
    }
}

int ds_write_procs(struct ds_scn *s, const char *root, double t)
{
    char rel[64], info[80], fdname[16];
    /* booted a day ago: processes look as old as on a machine up since this morning */
    static long long btime;
    if (!btime)
        btime = (long long)time(NULL) - 86400;
    int rc = ds_putf(root, "proc/stat", "cpu  100 0 100 1000 0 0 0 0 0 0\nbtime %lld\nprocesses 5000\n", btime);

    for (int i = 0; i < s->nprocs; i++) {
        const struct ds_proc *p = &s->procs[i];
        snprintf(rel, sizeof(rel), "proc/%u", p->pid);
        if (!alive(p, p->pid, t)) {
            snprintf(info, sizeof(info), "%s/fdinfo", rel);
            empty_fdinfo(root, info, NULL);
            ds_rmtree(root, rel);
            continue;
        }
        rc |= write_proc_files(p, p->pid, root, t);
    }
    for (int i = 0; i < s->nclients; i++) {
        const struct ds_client *c = &s->clients[i];
        const struct ds_proc *p = proc_of(s, c->pid);
        if (!alive(p, c->pid, t))
            continue;
        if (!p)
            rc |= write_proc_files(NULL, c->pid, root, t);
        if (t < c->start || t >= c->exit) {
            snprintf(rel, sizeof(rel), "proc/%u/fd/%d", c->pid, c->fd);
            ds_rmtree(root, rel);
            snprintf(rel, sizeof(rel), "proc/%u/fdinfo/%d", c->pid, c->fd);
            snprintf(fdname, sizeof(fdname), "%d", c->fd);
            snprintf(info, sizeof(info), "proc/%u/fdinfo", c->pid);
            empty_fdinfo(root, info, fdname);
            ds_rmtree(root, rel);
            continue;
        }
        rc |= write_client(s, c, root, t);
    }
    /* last: the kernel's last PID given out (loadavg's fifth field) changes with
     * every new process; here it counts the scenario processes started so far,
     * written after their directories (the kernel gives a PID out before its
     * process shows in /proc: the backend lists twice after a change) */
    int running = 0, started = 0;
    for (int i = 0; i < s->nprocs; i++) {
        started += t >= s->procs[i].start;
        running += alive(&s->procs[i], s->procs[i].pid, t);
    }
    rc |= ds_putf(root, "proc/loadavg", "0.50 0.40 0.30 1/%d %d\n", running + 1, 300000 + started);
    return rc ? -1 : 0;
}
