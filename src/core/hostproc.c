/* SPDX-License-Identifier: MIT */
/*
 * hostproc.c - host facts for GPU processes, read from /proc (see hostproc.h):
 * the per-PID reads and the public tick API. The text parsers live in
 * hostproc_parse.c, the PID table and user names in hostproc_cache.c.
 *
 * Cost model (this runs once per GPU process per tick, so it is the sampler's
 * hot path; opening a /proc file costs ~5 us, reading an open one ~0.5 us).
 * First sight of a PID: open its directory (O_PATH) once and read stat,
 * cmdline and cgroup relative to it; the user comes from the kernel's pidfd
 * info (Linux 6.13+; else the directory's owner, and status only when that
 * says root), so status is not formatted at all. RSS comes from stat
 * and CPU from the process CPU clock, so a one-shot query opens nothing more
 * (told so by gs_hostproc_once, it keeps no descriptor and reads only the
 * files the output prints).
 * The directory is kept: it pins the process (files opened through it fail
 * once it is reaped, even if the PID number was reused), so the second tick
 * opens statm through it and keeps that instead. From then on, on our own
 * procfs, a tick costs two cheap calls per PID: the process CPU clock
 * (clock_gettime on the PID's CPU clock: all threads, in ns, about 4x cheaper
 * than formatting /proc/PID/stat) and one pread(2) of the kept statm; comm,
 * parent and group (which change only by prctl or when the parent dies) are
 * re-read from stat every 30 to 60 s, each PID on its own phase so that a
 * job's processes that all started together do not re-read in one tick. On another namespace's
 * procfs (a host /proc mounted into a container) the kept descriptor is
 * PID/stat instead; on a fixture tree every tick reads stat.
 * No stdio, no heap on the hot path: stack buffers and plain pread(2), one
 * per file (procfs hands out a file's text whole, so a short read is its end).
 */
#include "core/hostproc_priv.h"

#include "core/err.h"
#include "lib/roots.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

#define HP_PROC_SUPER_MAGIC 0x9fa0 /* statfs f_type of procfs */
#define HP_STAT_BUF 1024           /* /proc/PID/stat is ~300 bytes; fields we need end by ~500 */
#define HP_CGROUP_BUF 8192         /* v1: one line per hierarchy, paths up to ~250 bytes */
#define HP_STATUS_BUF 1024         /* the Uid: line is within the first ~400 bytes */
#define HP_MIN_SLOTS 64u
#define HP_MAX_KEPT_FDS 4096u
#define HP_STAT_REFRESH_NS UINT64_C(60000000000) /* comm, parent, group: re-read at most ... */
#define HP_STAT_REFRESH_SPREAD 32u                  /* ... this period less 0..15/32 of it, by PID */
#define HP_OPEN_FLAGS (O_RDONLY | O_CLOEXEC | O_NOCTTY)

#define HP_CPU_MASK ((1u << GS_P_CPU) | (1u << GS_P_CPU_TIME)) /* from the process CPU clock */
#define HP_TICK_MASK ((1u << GS_P_CPU) | (1u << GS_P_RSS) | (1u << GS_P_CPU_TIME))
#define HP_STAT_MASK                                                                              \
    ((1u << GS_P_CPU) | (1u << GS_P_RSS) | (1u << GS_P_CPU_TIME) | (1u << GS_P_START) |          \
     (1u << GS_P_PARENT))
#define HP_IDENTITY_MASK                                                                          \
    ((1u << GS_P_USER) | (1u << GS_P_COMM) | (1u << GS_P_CONTAINER) | (1u << GS_P_POD))

/* ---- 1. reading files ------------------------------------------------------------- */

/* Read from fd at offset 0 until cap bytes, EOF or a short read. Returns bytes
 * or -errno. procfs formats a file's text whole on each read(2), so a short
 * read is the end: reading on for the 0 of EOF would make the kernel format
 * the whole text again (a second syscall that costs as much as the first). */
static ssize_t hp_pread_all(int fd, char *buf, size_t cap)
{
    size_t have = 0;

    while (have < cap) {
        size_t want = cap - have;
        ssize_t n = pread(fd, buf + have, want, (off_t)have);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return -errno;
        have += (size_t)n;
        if ((size_t)n < want)
            break;
    }
    return (ssize_t)have;
}

/* Read dfd/name into buf (NUL-terminated, at most cap-1 bytes); bytes or -errno. */
static ssize_t hp_read_at(int dfd, const char *name, char *buf, size_t cap)
{
    int fd = openat(dfd, name, HP_OPEN_FLAGS);
    ssize_t n;

    if (fd < 0)
        return -errno;
    n = hp_pread_all(fd, buf, cap - 1);
    close(fd);
    buf[n > 0 ? n : 0] = '\0';
    return n;
}

/* <root>/PID as an O_PATH directory, or -1 with errno set. */
static int hp_open_pid_dir(const struct gs_hostproc *hp, uint32_t pid)
{
    char path[16];

    if (hp->root_fd < 0) {
        errno = ENOENT;
        return -1;
    }
    snprintf(path, sizeof(path), "%u", pid);
    return openat(hp->root_fd, path, O_PATH | O_DIRECTORY | O_CLOEXEC);
}

/* Read <root>/PID/name (one path walk; for the periodic stat refresh). */
static ssize_t hp_read_pid_file(const struct gs_hostproc *hp, uint32_t pid, const char *name,
                                char *buf, size_t cap)
{
    char path[48];

    if (hp->root_fd < 0)
        return -ENOENT;
    snprintf(path, sizeof(path), "%u/%s", pid, name);
    return hp_read_at(hp->root_fd, path, buf, cap);
}

/* Copy a NUL-terminated field of the same size: only the text, not the whole array. */
static void hp_copy_text(char *dst, const char *src, size_t cap)
{
    size_t n = strnlen(src, cap - 1);

    memcpy(dst, src, n);
    dst[n] = '\0';
}

/* ---- 2. per-PID refresh ------------------------------------------------------------ */

/* The kernel's CPU clock of a whole process (all threads, nanoseconds):
 * MAKE_PROCESS_CPUCLOCK(pid, CPUCLOCK_SCHED), the stable ABI glibc's
 * clock_getcpuclockid() computes (it then spends a syscall validating it). */
static int hp_cpu_ns(uint32_t pid, uint64_t *out)
{
    clockid_t id = (clockid_t)((~(unsigned)pid << 3) | 2u);
    struct timespec ts;

    if (clock_gettime(id, &ts) < 0)
        return -1;
    *out = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
    return 0;
}

/* Keep fd for later ticks when the budget allows (then 1), else close it (0). */
static int hp_keep(struct gs_hostproc *hp, int *slot, int fd)
{
    if (fd < 0)
        return 0;
    if (hp->kept_fds < hp->max_kept_fds) {
        *slot = fd;
        hp->kept_fds++;
        return 1;
    }
    close(fd);
    return 0;
}

/* /proc/PID cannot be read. A process we saw before has exited (keep what
 * described it, drop the live readings); otherwise say why it is invisible. */
static void hp_mark_gone(struct hp_rec *r, int err)
{
    struct hp_host *h = &r->host;

    r->cpu_prev_ok = false;
    if (err == EACCES || err == EPERM) {
        h->host_vis = GS_HOST_NO_PERMISSION;
        h->valid &= ~HP_HOST_MASK;
    } else if (r->ever_visible) {
        h->host_vis = GS_HOST_EXITED;
        h->valid &= ~HP_TICK_MASK;
    } else {
        h->host_vis = GS_HOST_NOT_VISIBLE;
        h->valid &= ~HP_HOST_MASK;
    }
}

/* struct pidfd_info as Linux 6.13 published it (PIDFD_INFO_SIZE_VER0): our
 * own copy, as C library headers lag behind; checked on ourselves at open. */
struct hp_pidfd_info {
    uint64_t mask, cgroupid;
    uint32_t pid, tgid, ppid, ruid, rgid, euid, egid, suid, sgid, fsuid, fsgid, spare0;
};
_Static_assert(sizeof(struct hp_pidfd_info) == 64, "PIDFD_INFO_SIZE_VER0 is 64 bytes");
#define HP_PIDFD_GET_INFO _IOWR(0xFF, 11, struct hp_pidfd_info)
#define HP_PIDFD_INFO_CREDS (UINT64_C(1) << 1)

/* The credentials of pid (our namespace) through a pidfd: three cheap calls
 * instead of opening and formatting PID/status. 0 or -1. */
static int hp_pidfd_creds(uint32_t pid, struct hp_pidfd_info *info)
{
    int fd = (int)syscall(SYS_pidfd_open, (pid_t)pid, 0);
    int rc;

    if (fd < 0)
        return -1;
    memset(info, 0, sizeof(*info));
    info->mask = HP_PIDFD_INFO_CREDS;
    rc = ioctl(fd, HP_PIDFD_GET_INFO, info);
    close(fd);
    return rc == 0 && (info->mask & HP_PIDFD_INFO_CREDS) ? 0 : -1;
}

/* Does PIDFD_GET_INFO work here, and say what we know of ourselves? */
static bool hp_pidfd_works(void)
{
    struct hp_pidfd_info info;

    return hp_pidfd_creds((uint32_t)getpid(), &info) == 0 && info.pid == (uint32_t)getpid() &&
           info.ruid == (uint32_t)getuid() && info.euid == (uint32_t)geteuid();
}

/* The owner of the PID directory when it is not root (0), else -1. */
static int hp_dir_owner(const struct gs_hostproc *hp, int dfd, uint32_t *uid)
{
    struct stat sb;

    if (!hp->is_procfs || fstat(dfd, &sb) < 0 || sb.st_uid == 0)
        return -1;
    *uid = (uint32_t)sb.st_uid;
    return 0;
}

/* The real uid (what status says, and what gpustat and nvitop report): from
 * the kernel's pidfd info where it has one; else the owner of the PID
 * directory (the effective uid, one fstat away; before Linux 4.11 root for
 * a non-dumpable process), so a root owner is checked in status. (Asking
 * the directory first would save a one-shot two calls per process, but give
 * a set-uid program's effective user where top and the gpustat face give
 * the real one.) The pidfd probe runs at the first use. The caller reads
 * through dfd afterwards, which proves the PID still named the process dfd
 * pins when the pidfd was opened. */
static int hp_read_uid(struct gs_hostproc *hp, uint32_t pid, int dfd, uint32_t *uid)
{
    char buf[HP_STATUS_BUF];
    struct hp_pidfd_info info;
    ssize_t n;

    if (hp->pidfd_info < 0)
        hp->pidfd_info = hp->own_ns && hp_pidfd_works();
    if (hp->pidfd_info > 0 && hp_pidfd_creds(pid, &info) == 0) {
        *uid = info.ruid;
        return 0;
    }
    if (hp_dir_owner(hp, dfd, uid) == 0)
        return 0;
    n = hp_read_at(dfd, "status", buf, sizeof(buf));
    return n > 0 ? gs_hp_parse_status_uid(buf, (size_t)n, uid) : -1;
}

/* What cannot change for one process: command line, user, container, pod,
 * read through its directory dfd. Returns -1 when the process vanished
 * meanwhile (r is then marked). */
static int hp_load_identity(struct gs_hostproc *hp, struct hp_rec *r, int dfd)
{
    char buf[HP_CGROUP_BUF];
    struct hp_host *h = &r->host;
    ssize_t n;

    h->valid &= ~HP_IDENTITY_MASK;
    gs_hp_clear_cmdline(h);
    h->user[0] = '\0';
    bool uid_ok = hp_read_uid(hp, r->pid, dfd, &h->uid) == 0; /* first: see hp_read_uid */
    if (!(hp->want & GS_HOSTPROC_NO_CMDLINE)) {
        n = hp_read_at(dfd, "cmdline", buf, GS_CMDLINE_MAX);
        if (n < 0) {
            hp_mark_gone(r, (int)-n);
            return -1;
        }
        gs_hp_set_cmdline(h, buf, (size_t)n);
    }
    if (uid_ok) {
        gs_hp_user_name(hp, h->uid, h->user, sizeof(h->user));
        hp_set(h, GS_P_USER);
    }
    if (!(hp->want & ((1u << GS_P_CONTAINER) | (1u << GS_P_POD) | (1u << GS_P_SLURM))))
        return 0;
    n = hp_read_at(dfd, "cgroup", buf, sizeof(buf));
    if (n > 0) {
        struct gs_proc c = {0};
        const uint32_t m = (1u << GS_P_CONTAINER) | (1u << GS_P_POD) | (1u << GS_P_SLURM);
        gs_hostproc_parse_cgroup(buf, (size_t)n, &c);
        h->valid = (h->valid & ~m) | (c.valid & m);
        memcpy(h->container_id, c.container_id, sizeof(h->container_id));
        memcpy(h->container_runtime, c.container_runtime, sizeof(h->container_runtime));
        memcpy(h->pod_uid, c.pod_uid, sizeof(h->pod_uid));
        h->slurm_job = c.slurm_job;
        memcpy(h->slurm_step, c.slurm_step, sizeof(h->slurm_step));
    }
    return 0;
}

/* CPU % over the time since the previous reading of the same kind. */
static void hp_update_cpu(struct gs_hostproc *hp, struct hp_rec *r, uint64_t cpu_ns)
{
    struct hp_host *h = &r->host;

    h->cpu_time_ns = cpu_ns;
    hp_set(h, GS_P_CPU_TIME);
    if (r->cpu_prev_ok && hp->now_ns > r->prev_ns && cpu_ns >= r->prev_cpu_ns) {
        h->cpu_pct = 100.0 * (double)(cpu_ns - r->prev_cpu_ns) / (double)(hp->now_ns - r->prev_ns);
        hp_set(h, GS_P_CPU);
    }
    r->prev_cpu_ns = cpu_ns;
    r->prev_ns = hp->now_ns;
    r->cpu_prev_ok = true;
}

static void hp_set_start(struct gs_hostproc *hp, struct hp_host *h)
{
    if (hp_has(h, GS_P_START))
        h->age_s = hp->now_s > h->start_time ? (uint64_t)(hp->now_s - h->start_time) : 0;
}

/* Facts from a parsed stat: comm, parent, group, start; with live, also RSS
 * and (on another namespace's procfs, where stat is the CPU source) CPU. */
static void hp_apply_stat(struct gs_hostproc *hp, struct hp_rec *r, const struct gs_proc_stat *st,
                          bool live)
{
    struct hp_host *h = &r->host;

    gs_hp_copy_str(h->comm, sizeof(h->comm), st->comm);
    hp_set(h, GS_P_COMM);
    h->ppid = st->ppid;
    h->pgid = st->pgid;
    hp_set(h, GS_P_PARENT);
    if (hp->btime_ok) {
        h->start_time = hp->btime_s + (int64_t)(st->start_ticks / (uint64_t)hp->clk_tck);
        hp_set(h, GS_P_START);
        hp_set_start(hp, h);
    }
    r->stat_ns = hp->now_ns;
    if (!live)
        return;
    h->rss_bytes = st->rss_pages * (uint64_t)hp->page_bytes;
    hp_set(h, GS_P_RSS);
    if (!hp->own_ns)
        hp_update_cpu(hp, r, st->cpu_ticks * (1000000000u / (uint64_t)hp->clk_tck));
}

/* CPU % from a process-clock reading taken this tick (own namespace). */
static void hp_apply_clock(struct gs_hostproc *hp, struct hp_rec *r, bool cpu_ok, uint64_t cpu_ns)
{
    if (cpu_ok)
        hp_update_cpu(hp, r, cpu_ns);
    else
        r->host.valid &= ~(1u << GS_P_CPU);
}

/* How often this PID's comm/parent/group are re-read: between half and all of
 * HP_STAT_REFRESH_NS, fixed per PID, so that the re-reads spread out. */
static uint64_t hp_stat_period(uint32_t pid)
{
    uint32_t k = (pid * 2654435761u) >> 28; /* 0..15 */

    return HP_STAT_REFRESH_NS - k * (HP_STAT_REFRESH_NS / HP_STAT_REFRESH_SPREAD);
}

/* A fresh stat read for comm/parent/group, every hp_stat_period(). */
static void hp_refresh_stat_facts(struct gs_hostproc *hp, struct hp_rec *r)
{
    char buf[HP_STAT_BUF];
    struct gs_proc_stat st;
    ssize_t n = hp_read_pid_file(hp, r->pid, "stat", buf, sizeof(buf));

    r->stat_ns = hp->now_ns; /* also on failure: try again next period */
    if (n > 0 && gs_proc_stat_parse(buf, (size_t)n, &st) == 0 && st.start_ticks == r->start_ticks) {
        gs_hp_sanitize(st.comm);
        hp_apply_stat(hp, r, &st, false);
    }
}

/* The kept descriptor, which pins the process: 0 when it answered, -1 when
 * the process behind it is gone (then the caller looks the PID up afresh). */
static int hp_refresh_kept(struct gs_hostproc *hp, struct hp_rec *r)
{
    char buf[HP_STAT_BUF];
    struct gs_proc_stat st;
    uint64_t cpu_ns = 0, pages;
    /* CPU clock first: if the pinned process still answers afterwards, the
     * PID number still belonged to it when the clock was read. */
    bool cpu_ok = hp->own_ns && hp_cpu_ns(r->pid, &cpu_ns) == 0;
    ssize_t n = hp_pread_all(r->live_fd, buf, sizeof(buf) - 1);

    if (n <= 0) {
        gs_hp_drop_fds(hp, r);
        return -1;
    }
    if (!hp->own_ns) { /* another namespace's procfs: stat is the source */
        if (gs_proc_stat_parse(buf, (size_t)n, &st) < 0 || st.start_ticks != r->start_ticks) {
            gs_hp_drop_fds(hp, r);
            return -1;
        }
        gs_hp_sanitize(st.comm);
        hp_apply_stat(hp, r, &st, true);
        return 0;
    }
    r->host.valid &= ~(1u << GS_P_RSS);
    if (gs_hp_parse_statm_rss(buf, (size_t)n, &pages) == 0) {
        r->host.rss_bytes = pages * (uint64_t)hp->page_bytes;
        hp_set(&r->host, GS_P_RSS);
    }
    hp_apply_clock(hp, r, cpu_ok, cpu_ns);
    hp_set_start(hp, &r->host);
    if (hp->now_ns - r->stat_ns >= hp_stat_period(r->pid))
        hp_refresh_stat_facts(hp, r);
    return 0;
}

/* Second sight of a PID seen once: open statm through the directory kept
 * since, which names the same process (a reaped one fails, even if its PID
 * number was reused), keep statm and close the directory. */
static void hp_promote(struct gs_hostproc *hp, struct hp_rec *r)
{
    int fd = openat(r->dir_fd, "statm", HP_OPEN_FLAGS);

    gs_hp_drop_fds(hp, r);
    hp_keep(hp, &r->live_fd, fd);
}

/* What the files other than stat say: when stat does not parse (truncated,
 * unexpected kernel: the process is there), and for a one-shot that prints
 * nothing stat has (hp_refresh_light). Nothing cached (no start time). */
static void hp_refresh_without_stat(struct gs_hostproc *hp, struct hp_rec *r, int dfd)
{
    char buf[32];
    ssize_t n;

    r->identity_known = false;
    r->cpu_prev_ok = false;
    r->host.valid &= ~HP_HOST_MASK;
    if (hp_load_identity(hp, r, dfd) < 0)
        return;
    n = hp_read_at(dfd, "comm", buf, sizeof(buf));
    if (n < 0 && (hp->want & GS_HOSTPROC_NO_CMDLINE)) { /* nothing else said it is there */
        hp_mark_gone(r, (int)-n);
        return;
    }
    if (n > 0) {
        while (n > 0 && buf[n - 1] == '\n')
            buf[--n] = '\0';
        gs_hp_copy_str(r->host.comm, sizeof(r->host.comm), buf);
        gs_hp_sanitize(r->host.comm);
        hp_set(&r->host, GS_P_COMM);
    }
    r->host.host_vis = GS_HOST_VISIBLE;
    r->ever_visible = true;
}

/* stat of a process, through its directory: the open descriptor (which the
 * caller may keep: it pins the process) and the parsed text. Returns the
 * descriptor, or -1 with *n = -errno (cannot read) or >= 0 (does not parse). */
static int hp_read_stat(int dfd, struct gs_proc_stat *st, ssize_t *n)
{
    char buf[HP_STAT_BUF];
    int fd = openat(dfd, "stat", HP_OPEN_FLAGS);

    *n = fd < 0 ? -errno : hp_pread_all(fd, buf, sizeof(buf) - 1);
    if (*n >= 0 && gs_proc_stat_parse(buf, (size_t)*n, st) == 0)
        return fd;
    if (fd >= 0)
        close(fd);
    return -1;
}

/* The identity of the process now behind r's PID (read when new). 0, or -1
 * when it vanished meanwhile. */
static int hp_check_identity(struct gs_hostproc *hp, struct hp_rec *r, uint64_t start_ticks,
                             int dfd)
{
    if (r->identity_known && r->start_ticks == start_ticks)
        return 0;
    if (r->start_ticks != start_ticks) { /* a new process behind the PID */
        r->cpu_prev_ok = false;
        r->host.valid &= ~HP_HOST_MASK;
    }
    r->identity_known = false;
    if (hp_load_identity(hp, r, dfd) < 0)
        return -1;
    r->start_ticks = start_ticks;
    r->identity_known = true;
    return 0;
}

/* First sight of a PID, or what pinned it went stale: read it all through
 * its directory, and keep what the next tick needs (see the top). */
static void hp_refresh_full(struct gs_hostproc *hp, struct hp_rec *r)
{
    struct gs_proc_stat st;
    uint64_t cpu_ns = 0;
    bool cpu_ok;
    ssize_t n;
    int sfd, dfd = hp_open_pid_dir(hp, r->pid);

    gs_hp_drop_fds(hp, r);
    if (dfd < 0) {
        hp_mark_gone(r, errno);
        return;
    }
    /* CPU clock first: stat read through dfd afterwards proves that the PID
     * still belonged to the process dfd pins when the clock was read. */
    cpu_ok = hp->own_ns && (hp->want & HP_CPU_MASK) && hp_cpu_ns(r->pid, &cpu_ns) == 0;
    sfd = hp_read_stat(dfd, &st, &n);
    if (sfd < 0) {
        if (n < 0)
            hp_mark_gone(r, (int)-n);
        else
            hp_refresh_without_stat(hp, r, dfd);
        close(dfd);
        return;
    }
    gs_hp_sanitize(st.comm);
    r->ever_visible = true; /* from here on, vanishing means "exited" */
    if (hp_check_identity(hp, r, st.start_ticks, dfd) < 0) {
        close(sfd);
        close(dfd);
        return;
    }
    r->host.host_vis = GS_HOST_VISIBLE;
    hp_apply_stat(hp, r, &st, true);
    if (hp->own_ns && (hp->want & HP_CPU_MASK))
        hp_apply_clock(hp, r, cpu_ok, cpu_ns);
    if (hp->once || !hp->is_procfs || hp->own_ns || !hp_keep(hp, &r->live_fd, sfd))
        close(sfd);
    if (hp->once || !hp->is_procfs || !hp->own_ns || !hp_keep(hp, &r->dir_fd, dfd))
        close(dfd);
}

/* Outside the focus, a PID's CPU and RSS are read every background period
 * (a little less for some PIDs, so that a job's processes spread out) and
 * handed on in between; a PID met for the first time is always read. */
static bool hp_live_due(const struct gs_hostproc *hp, const struct hp_rec *r)
{
    const uint64_t period = GS_HOSTPROC_BACKGROUND_MS * UINT64_C(1000000);

    if (hp->focus_all || r->focus_gen == hp->focus_gen || !r->live_ns || r->live_fd < 0)
        return true;
    uint64_t k = (r->pid * 2654435761u) >> 29; /* 0..7 */
    return hp->now_ns - r->live_ns >= period - k * (period / 16);
}

/* A one-shot that prints only user, command and container (the table):
 * those files through the PID's directory, not stat. */
static void hp_refresh_light(struct gs_hostproc *hp, struct hp_rec *r)
{
    int dfd = hp_open_pid_dir(hp, r->pid);

    if (dfd < 0) {
        hp_mark_gone(r, errno);
        return;
    }
    hp_refresh_without_stat(hp, r, dfd);
    close(dfd);
}

static void hp_refresh(struct gs_hostproc *hp, struct hp_rec *r)
{
    if (hp->once && !(hp->want & HP_STAT_MASK)) {
        hp_refresh_light(hp, r);
        return;
    }
    if (!hp_live_due(hp, r)) {
        hp_set_start(hp, &r->host);
        return;
    }
    r->live_ns = hp->now_ns;
    if (r->dir_fd >= 0)
        hp_promote(hp, r);
    if (r->live_fd >= 0 && hp_refresh_kept(hp, r) == 0)
        return;
    hp_refresh_full(hp, r);
}

static void hp_copy_host(struct gs_text *text, struct gs_proc *dst, const struct hp_host *src)
{
    dst->valid = (dst->valid & ~HP_HOST_MASK) | (src->valid & HP_HOST_MASK);
    dst->host_vis = src->host_vis;
    dst->uid = src->uid;
    /* short fields whole (a few moves), the long ones up to their text */
    memcpy(dst->user, src->user, sizeof(dst->user));
    memcpy(dst->comm, src->comm, sizeof(dst->comm));
    /* out of memory for the text: comm and command line are not available (gs_proc_set_cmdline) */
    if (src->cmdline)
        (void)gs_proc_set_cmdline(text, dst, src->cmdline, src->cmdline_len,
                                  (const uint8_t *)src->cmdline + src->cmdline_len + 1, src->cmdline_sep_bytes);
    else
        dst->cmd_off = dst->cmd_len = dst->cmd_sep_bytes = 0;
    dst->cpu_time_ns = src->cpu_time_ns;
    dst->cpu_pct = src->cpu_pct;
    dst->rss_bytes = src->rss_bytes;
    dst->start_time = src->start_time;
    dst->age_s = src->age_s;
    dst->ppid = src->ppid;
    dst->pgid = src->pgid;
    hp_copy_text(dst->container_id, src->container_id, sizeof(dst->container_id));
    memcpy(dst->container_runtime, src->container_runtime, sizeof(dst->container_runtime));
    memcpy(dst->pod_uid, src->pod_uid, sizeof(dst->pod_uid));
    dst->slurm_job = src->slurm_job;
    memcpy(dst->slurm_step, src->slurm_step, sizeof(dst->slurm_step));
}

/* ---- 3. the handle and the tick API ------------------------------------------------- */

static uint32_t hp_fd_budget(void)
{
    struct rlimit rl;

    if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur == RLIM_INFINITY)
        return HP_MAX_KEPT_FDS;
    /* a quarter of the limit: the rest of the program keeps its descriptors */
    return rl.rlim_cur / 4 < HP_MAX_KEPT_FDS ? (uint32_t)(rl.rlim_cur / 4) : HP_MAX_KEPT_FDS;
}

/* Is this procfs our own PID namespace's? Its "self" link then names us.
 * (A host /proc mounted into a container names our host PID instead.) */
static bool hp_is_own_ns(int root_fd)
{
    char link[24], want[24];
    ssize_t n = readlinkat(root_fd, "self", link, sizeof(link) - 1);

    if (n <= 0)
        return false;
    link[n] = '\0';
    snprintf(want, sizeof(want), "%ld", (long)getpid());
    return !strcmp(link, want);
}

/* Boot time from <root>/stat, read once per handle. */
static bool hp_btime(int root_fd, int64_t *out)
{
    int fd = root_fd < 0 ? -1 : openat(root_fd, "stat", HP_OPEN_FLAGS);
    int rc;

    if (fd < 0)
        return false;
    rc = gs_hp_read_btime(fd, out);
    close(fd);
    return rc == 0;
}

int gs_hostproc_open(struct gs_hostproc **out, const char *proc_root)
{
    struct gs_hostproc *hp = calloc(1, sizeof(*hp));
    struct statfs sfs;

    *out = NULL;
    if (!hp)
        return -GS_E_NOMEM;
    hp->slots = calloc(HP_MIN_SLOTS, sizeof(*hp->slots));
    if (!hp->slots) {
        free(hp);
        return -GS_E_NOMEM;
    }
    hp->nslots = HP_MIN_SLOTS;
    /* A missing root is not an error: every PID is then "not visible". */
    hp->root_fd = open(gs_proc_root(proc_root), O_PATH | O_DIRECTORY | O_CLOEXEC);
    hp->is_procfs = hp->root_fd >= 0 && fstatfs(hp->root_fd, &sfs) == 0 &&
                    sfs.f_type == HP_PROC_SUPER_MAGIC;
    hp->own_ns = hp->is_procfs && hp_is_own_ns(hp->root_fd);
    hp->pidfd_info = -1; /* asked at the first use: a one-shot never needs it */
    hp->clk_tck = sysconf(_SC_CLK_TCK);
    if (hp->clk_tck <= 0)
        hp->clk_tck = 100;
    hp->page_bytes = sysconf(_SC_PAGESIZE);
    if (hp->page_bytes <= 0)
        hp->page_bytes = 4096;
    hp->max_kept_fds = hp_fd_budget();
    hp->btime_ok = hp_btime(hp->root_fd, &hp->btime_s);
    hp->tick = 1;
    hp->focus_all = true;
    hp->want = HP_HOST_MASK;
    *out = hp;
    return 0;
}

void gs_hostproc_close(struct gs_hostproc *hp)
{
    if (!hp)
        return;
    gs_hp_table_free(hp);
    free(hp->users);
    if (hp->root_fd >= 0)
        close(hp->root_fd);
    free(hp);
}

void gs_hostproc_once(struct gs_hostproc *hp, uint32_t want)
{
    hp->once = true;
    hp->want = want ? want : HP_HOST_MASK;
}

void gs_hostproc_begin(struct gs_hostproc *hp, uint64_t now_ns, int64_t now_s)
{
    hp->tick++;
    hp->now_ns = now_ns;
    hp->now_s = now_s;
}

void gs_hostproc_fill(struct gs_hostproc *hp, struct gs_text *text, struct gs_proc *p)
{
    struct hp_rec tmp, *r = gs_hp_lookup_add(hp, p->pid);

    if (!r) { /* out of memory: read it uncached rather than not at all */
        memset(&tmp, 0, sizeof(tmp));
        tmp.pid = p->pid;
        tmp.live_fd = tmp.dir_fd = -1;
        r = &tmp;
    }
    if (r->seen_tick != hp->tick) {
        hp_refresh(hp, r);
        r->seen_tick = hp->tick;
    }
    hp_copy_host(text, p, &r->host);
    if (r == &tmp) {
        gs_hp_drop_fds(hp, &tmp);
        gs_hp_clear_cmdline(&tmp.host);
    }
}

void gs_hostproc_end(struct gs_hostproc *hp)
{
    gs_hp_evict_unseen(hp);
}

void gs_hostproc_focus(struct gs_hostproc *hp, const uint32_t *pids, uint32_t n)
{
    hp->focus_all = pids == NULL;
    hp->focus_gen++;
    for (uint32_t i = 0; pids && i < n; i++) {
        struct hp_rec *r = gs_hp_lookup_add(hp, pids[i]);
        if (r)
            r->focus_gen = hp->focus_gen;
    }
}
