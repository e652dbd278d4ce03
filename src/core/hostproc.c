/* SPDX-License-Identifier: MIT */
/*
 * hostproc.c - host facts for GPU processes, read from /proc (see hostproc.h).
 *
 * Cost model (this runs once per GPU process per tick, so it is the sampler's
 * hot path). First sight of a PID: stat, cmdline, status and cgroup, once per
 * PID + start time. After that, on our own procfs, a tick costs two cheap
 * calls per PID: the process CPU clock (clock_gettime on the PID's CPU clock:
 * all threads, in ns, about 4x cheaper than formatting /proc/PID/stat) and a
 * pread(2) of PID/statm on a descriptor kept open across ticks. The kept
 * descriptor pins the process: once it is reaped the read fails (ESRCH) even
 * if the PID number was reused, so identity needs no start-time check per
 * tick; comm, parent and group are re-read from stat every 5 s. On another
 * namespace's procfs (a host /proc mounted into a container) the kept
 * descriptor is PID/stat instead; on a fixture tree every tick reads stat.
 * No stdio, no heap on the hot path: stack buffers and plain read(2).
 *
 * Contents:
 *   1. small helpers (reading files relative to the root, numbers)
 *   2. parsers: stat, cgroup, status (Uid), /proc/stat (btime)
 *   3. the PID table (open addressing, linear probing, keyed by PID)
 *   4. uid -> user name cache
 *   5. per-PID refresh and the public tick API
 */
#include "core/hostproc.h"

#include "core/err.h"

#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

#define HP_PROC_SUPER_MAGIC 0x9fa0 /* statfs f_type of procfs */
#define HP_STAT_BUF 1024           /* /proc/PID/stat is ~300 bytes; fields we need end by ~500 */
#define HP_CGROUP_BUF 8192         /* v1: one line per hierarchy, paths up to ~250 bytes */
#define HP_STATUS_BUF 1024         /* the Uid: line is within the first ~400 bytes */
#define HP_MIN_SLOTS 64u
#define HP_MAX_KEPT_FDS 4096u
#define HP_STAT_REFRESH_NS UINT64_C(5000000000) /* comm, parent, group: re-read this often */

/* Host fields this module owns in struct gs_proc (the rest are NVML's). */
#define HP_HOST_MASK                                                                              \
    ((1u << GS_P_USER) | (1u << GS_P_COMM) | (1u << GS_P_CPU) | (1u << GS_P_RSS) |               \
     (1u << GS_P_START) | (1u << GS_P_PARENT) | (1u << GS_P_CONTAINER) | (1u << GS_P_POD))

/* One PID we have seen: what was read this tick plus what carries over. */
struct hp_rec {
    uint32_t pid;
    uint64_t seen_tick;      /* hp->tick when host was last filled; 0 = never */
    int live_fd;             /* kept PID/statm (own namespace) or PID/stat (other procfs), or -1 */
    bool ever_visible;       /* read fine at least once (so a vanishing is "exited") */
    bool identity_known;     /* user/cmdline/container below belong to start_ticks */
    bool cpu_prev_ok;        /* prev_cpu_ns/prev_ns hold a reading */
    uint64_t start_ticks;    /* clock ticks after boot: with pid, the process identity */
    uint64_t stat_ns;        /* CLOCK_MONOTONIC when comm/ppid/pgid were last read */
    uint64_t prev_cpu_ns;    /* CPU time used by all threads at prev_ns */
    uint64_t prev_ns;        /* CLOCK_MONOTONIC of the previous CPU reading */
    struct gs_proc host;     /* host fields and host_vis as of seen_tick */
};

struct hp_slot {
    uint32_t pid;
    struct hp_rec *rec;      /* NULL: empty slot */
};

struct hp_user {
    uint32_t uid;
    char name[33];
};

struct gs_hostproc {
    int root_fd;             /* O_PATH directory of the proc root, or -1 */
    bool is_procfs;          /* root is a real procfs: descriptors may be kept */
    bool own_ns;             /* ... of our own PID namespace: PIDs are ours to clock_gettime */
    long clk_tck;            /* sysconf(_SC_CLK_TCK) */
    long page_bytes;         /* sysconf(_SC_PAGESIZE) */
    bool btime_ok;
    int64_t btime_s;         /* boot time, epoch seconds, from <root>/stat */
    uint64_t tick;           /* current tick number, starts at 1 */
    uint64_t now_ns;         /* CLOCK_MONOTONIC of the current tick */
    int64_t now_s;           /* wall clock of the current tick */
    struct hp_slot *slots;   /* nslots entries, a power of two */
    uint32_t nslots, nrecs;
    uint32_t kept_fds, max_kept_fds;
    struct hp_user *users;   /* uid -> name, grown as users appear (few) */
    uint32_t nusers, users_cap;
};

/* ---- 1. helpers ------------------------------------------------------------------ */

/* Read from fd at offset 0 until cap bytes or EOF. Returns bytes or -errno. */
static ssize_t hp_pread_all(int fd, char *buf, size_t cap)
{
    size_t have = 0;

    while (have < cap) {
        ssize_t n = pread(fd, buf + have, cap - have, (off_t)have);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return -errno;
        if (n == 0)
            break;
        have += (size_t)n;
    }
    return (ssize_t)have;
}

static int hp_open_pid_file(int root_fd, uint32_t pid, const char *name)
{
    char path[48];

    if (root_fd < 0) {
        errno = ENOENT;
        return -1;
    }
    snprintf(path, sizeof(path), "%u/%s", pid, name);
    return openat(root_fd, path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
}

/* Read <root>/PID/name into buf (NUL-terminated, at most cap-1 bytes). */
static ssize_t hp_read_pid_file(int root_fd, uint32_t pid, const char *name, char *buf, size_t cap)
{
    int fd = hp_open_pid_file(root_fd, pid, name);
    ssize_t n;

    if (fd < 0)
        return -errno;
    n = hp_pread_all(fd, buf, cap - 1);
    close(fd);
    buf[n > 0 ? n : 0] = '\0';
    return n;
}

/* Unsigned decimal in [s, end) up to the first non-digit; at least one digit. */
static const char *hp_parse_u64(const char *s, const char *end, uint64_t *out)
{
    uint64_t v = 0;
    const char *start = s;

    for (; s < end && *s >= '0' && *s <= '9'; s++) {
        unsigned d = (unsigned)(*s - '0');
        if (v > (UINT64_MAX - d) / 10)
            return NULL;
        v = v * 10 + d;
    }
    if (s == start)
        return NULL;
    *out = v;
    return s;
}

/* Copy a string into a fixed field, truncating (the fields are display text). */
static void hp_copy_str(char *dst, size_t cap, const char *src)
{
    size_t n = strnlen(src, cap - 1);

    memcpy(dst, src, n);
    dst[n] = '\0';
}

/* Terminal safety: a process chooses its own comm and argv, so control bytes
 * (escape sequences) must not reach a terminal through our output. */
static void hp_sanitize(char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || *s == 0x7f)
            *s = '?';
}

/* ---- 2. parsers ------------------------------------------------------------------ */

/* Advance past one space-separated field; NULL when the input ends first. */
static const char *hp_skip_field(const char *s, const char *end)
{
    while (s < end && *s == ' ')
        s++;
    if (s == end || *s == '\n')
        return NULL;
    while (s < end && *s != ' ' && *s != '\n')
        s++;
    return s;
}

static const char *hp_field_u64(const char *s, const char *end, uint64_t *out)
{
    while (s < end && *s == ' ')
        s++;
    s = hp_parse_u64(s, end, out);
    if (s && s < end && *s != ' ' && *s != '\n')
        return NULL;
    return s;
}

/* Fields after "(comm)", numbered as in proc(5): 3 state ... 24 rss. */
static int hp_parse_stat_tail(const char *s, const char *end, struct gs_proc_stat *out)
{
    uint64_t ppid, pgid, utime, stime;

    if (end - s < 3 || s[0] != ' ' || s[2] != ' ')
        return -1;
    out->state = s[1];
    s += 2;
    if (!(s = hp_field_u64(s, end, &ppid)) || !(s = hp_field_u64(s, end, &pgid)))
        return -1;
    for (int f = 6; f <= 13 && s; f++) /* session .. cmajflt */
        s = hp_skip_field(s, end);
    if (!s || !(s = hp_field_u64(s, end, &utime)) || !(s = hp_field_u64(s, end, &stime)))
        return -1;
    for (int f = 16; f <= 21 && s; f++) /* cutime .. itrealvalue (some signed) */
        s = hp_skip_field(s, end);
    if (!s || !(s = hp_field_u64(s, end, &out->start_ticks)))
        return -1;
    if (!(s = hp_skip_field(s, end)) || !hp_field_u64(s, end, &out->rss_pages)) /* vsize, rss */
        return -1;
    if (ppid > UINT32_MAX || pgid > UINT32_MAX || utime > UINT64_MAX - stime)
        return -1;
    out->ppid = (uint32_t)ppid;
    out->pgid = (uint32_t)pgid;
    out->cpu_ticks = utime + stime;
    return 0;
}

/* comm may hold spaces and parentheses: it runs from the first '(' to the LAST ')'. */
int gs_hostproc_parse_stat(const char *buf, size_t len, struct gs_proc_stat *out)
{
    const char *end = buf + len;
    const char *open, *close_paren;
    size_t n;

    memset(out, 0, sizeof(*out));
    open = memchr(buf, '(', len);
    close_paren = memrchr(buf, ')', len);
    if (!open || !close_paren || close_paren < open)
        return -1;
    n = (size_t)(close_paren - open - 1);
    if (n > sizeof(out->comm) - 1)
        n = sizeof(out->comm) - 1;
    memcpy(out->comm, open + 1, n);
    out->comm[n] = '\0';
    if (hp_parse_stat_tail(close_paren + 1, end, out) < 0) {
        memset(out, 0, sizeof(*out));
        return -1;
    }
    return 0;
}

static bool hp_is_hex64(const char *s, size_t len)
{
    if (len != 64)
        return false;
    for (size_t i = 0; i < len; i++)
        if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
            return false;
    return true;
}

/* One path segment: "<prefix><64hex>[.scope]" or a bare 64-hex id. */
static bool hp_cgroup_container(const char *seg, size_t len, const char *parent, size_t plen,
                                struct gs_proc *p)
{
    static const struct { const char *prefix, *runtime; } kinds[] = {
        { "docker-", "docker" },   { "cri-containerd-", "containerd" }, { "crio-", "cri-o" },
        { "libpod-", "podman" },   { "nerdctl-", "containerd" },
    };
    const char *runtime = NULL;

    if (len > 6 && !memcmp(seg + len - 6, ".scope", 6))
        len -= 6;
    for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]) && !runtime; i++) {
        size_t pl = strlen(kinds[i].prefix);
        if (len > pl && !memcmp(seg, kinds[i].prefix, pl) && hp_is_hex64(seg + pl, len - pl)) {
            runtime = kinds[i].runtime;
            seg += pl;
            len -= pl;
        }
    }
    if (!runtime && hp_is_hex64(seg, len)) /* cgroupfs layouts: the parent may name it */
        runtime = (plen == 6 && !memcmp(parent, "docker", 6)) ? "docker" : "";
    if (!runtime)
        return false;
    memcpy(p->container_id, seg, 64);
    p->container_id[64] = '\0';
    hp_copy_str(p->container_runtime, sizeof(p->container_runtime), runtime);
    return true;
}

/* "pod<uid>" anywhere in the path (dcgm-exporter's rule: not anchored at
 * /kubepods, since custom cgroup roots nest it), '_' -> '-'. */
static bool hp_cgroup_pod(const char *path, size_t len, struct gs_proc *p)
{
    for (const char *s = path; (s = memmem(s, (size_t)(path + len - s), "pod", 3)); s += 3) {
        const char *u = s + 3, *e = u;
        while (e < path + len && ((*e >= '0' && *e <= '9') || (*e >= 'a' && *e <= 'f') ||
                                  *e == '-' || *e == '_'))
            e++;
        size_t n = (size_t)(e - u);
        if (n < 32 || n > 36)
            continue;
        for (size_t i = 0; i < n; i++)
            p->pod_uid[i] = u[i] == '_' ? '-' : u[i];
        p->pod_uid[n] = '\0';
        return true;
    }
    return false;
}

/* The path of one "hierarchy-id:controllers:path" line: innermost container wins. */
static void hp_cgroup_path(const char *path, size_t len, struct gs_proc *p, bool *have_ctr,
                           bool *have_pod)
{
    const char *end = path + len, *parent = "";
    size_t plen = 0;

    if (!*have_pod)
        *have_pod = hp_cgroup_pod(path, len, p);
    if (*have_ctr)
        return;
    for (const char *s = path; s < end;) {
        const char *slash = memchr(s, '/', (size_t)(end - s));
        const char *e = slash ? slash : end;
        if (hp_cgroup_container(s, (size_t)(e - s), parent, plen, p))
            *have_ctr = true; /* keep going: a nested one (kind, dind) is more specific */
        parent = s;
        plen = (size_t)(e - s);
        s = e + 1;
    }
}

/* Valid bits are set when the file parsed: "" then means "not in a container/pod". */
int gs_hostproc_parse_cgroup(const char *buf, size_t len, struct gs_proc *p)
{
    const char *end = buf + len;
    bool have_ctr = false, have_pod = false, any_line = false;

    p->container_id[0] = p->container_runtime[0] = p->pod_uid[0] = '\0';
    p->valid &= ~((1u << GS_P_CONTAINER) | (1u << GS_P_POD));
    for (const char *line = buf; line < end;) {
        const char *nl = memchr(line, '\n', (size_t)(end - line));
        const char *e = nl ? nl : end;
        const char *c1 = memchr(line, ':', (size_t)(e - line));
        const char *c2 = c1 ? memchr(c1 + 1, ':', (size_t)(e - c1 - 1)) : NULL;
        if (c2 && c2 + 1 < e && c2[1] == '/') {
            any_line = true;
            hp_cgroup_path(c2 + 1, (size_t)(e - c2 - 1), p, &have_ctr, &have_pod);
        }
        line = e + 1;
    }
    if (!any_line)
        return -1;
    gs_proc_set(p, GS_P_CONTAINER);
    gs_proc_set(p, GS_P_POD);
    return 0;
}

/* The real uid from /proc/PID/status ("Uid:\treal\teffective\tsaved\tfs"), as
 * gpustat and nvitop (psutil) report it. */
static int hp_parse_status_uid(const char *buf, size_t len, uint32_t *uid)
{
    const char *end = buf + len;
    const char *s = memmem(buf, len, "\nUid:", 5);
    uint64_t v;

    if (!s)
        return -1;
    for (s += 5; s < end && (*s == '\t' || *s == ' '); s++)
        ;
    if (!hp_parse_u64(s, end, &v) || v > UINT32_MAX)
        return -1;
    *uid = (uint32_t)v;
    return 0;
}

/* Consume the complete lines in buf[0..*have): 0 once "btime N" is found. A
 * line longer than the buffer (intr on big machines) is dropped up to its newline. */
static int hp_btime_lines(char *buf, size_t cap, size_t *have, bool *skipping, int64_t *out)
{
    char *line = buf, *nl;
    size_t rest;

    while ((nl = memchr(line, '\n', *have - (size_t)(line - buf)))) {
        uint64_t v;
        if (!*skipping && !strncmp(line, "btime ", 6) && hp_parse_u64(line + 6, nl, &v) &&
            v <= INT64_MAX) {
            *out = (int64_t)v;
            return 0;
        }
        *skipping = false;
        line = nl + 1;
    }
    rest = *have - (size_t)(line - buf);
    if (rest >= cap - 1) {
        *skipping = true;
        rest = 0;
    }
    memmove(buf, line, rest);
    *have = rest;
    return -1;
}

/* Boot time from <root>/stat, read once per handle. */
static int hp_read_btime(int root_fd, int64_t *out)
{
    char buf[4096];
    size_t have = 0;
    bool skipping = false, eof = false;
    int rc = -1;
    int fd = root_fd < 0 ? -1 : openat(root_fd, "stat", O_RDONLY | O_CLOEXEC);

    if (fd < 0)
        return -1;
    while (rc < 0 && !eof) {
        /* have < sizeof(buf) - 1 here: hp_btime_lines leaves room. */
        ssize_t n = read(fd, buf + have, sizeof(buf) - 1 - have);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            eof = true;
            buf[have++] = '\n'; /* a last line without its newline */
        } else {
            have += (size_t)n;
        }
        rc = hp_btime_lines(buf, sizeof(buf), &have, &skipping, out);
    }
    close(fd);
    return rc;
}

/* ---- 3. the PID table --------------------------------------------------------------
 * Open addressing with linear probing, at most half full, deletion by backward
 * shift (no tombstones), so lookups stay short however PIDs come and go. */

static uint32_t hp_hash(uint32_t pid, uint32_t nslots)
{
    return (uint32_t)(((uint64_t)pid * UINT64_C(0x9E3779B97F4A7C15)) >> 40) & (nslots - 1);
}

static struct hp_slot *hp_find_slot(struct hp_slot *slots, uint32_t nslots, uint32_t pid)
{
    uint32_t i = hp_hash(pid, nslots);

    while (slots[i].rec && slots[i].pid != pid)
        i = (i + 1) & (nslots - 1);
    return &slots[i];
}

static int hp_resize(struct gs_hostproc *hp, uint32_t nslots)
{
    struct hp_slot *slots = calloc(nslots, sizeof(*slots));

    if (!slots)
        return -1;
    for (uint32_t i = 0; i < hp->nslots; i++)
        if (hp->slots[i].rec)
            *hp_find_slot(slots, nslots, hp->slots[i].pid) = hp->slots[i];
    free(hp->slots);
    hp->slots = slots;
    hp->nslots = nslots;
    return 0;
}

static struct hp_rec *hp_lookup_add(struct gs_hostproc *hp, uint32_t pid)
{
    struct hp_slot *sl = hp_find_slot(hp->slots, hp->nslots, pid);
    struct hp_rec *rec;

    if (sl->rec)
        return sl->rec;
    if ((hp->nrecs + 1) * 2 > hp->nslots) {
        if (hp->nslots > UINT32_MAX / 2 || hp_resize(hp, hp->nslots * 2) < 0)
            return NULL;
        sl = hp_find_slot(hp->slots, hp->nslots, pid);
    }
    rec = calloc(1, sizeof(*rec));
    if (!rec)
        return NULL;
    rec->pid = pid;
    rec->live_fd = -1;
    sl->pid = pid;
    sl->rec = rec;
    hp->nrecs++;
    return rec;
}

static void hp_rec_free(struct gs_hostproc *hp, struct hp_rec *rec)
{
    if (rec->live_fd >= 0) {
        close(rec->live_fd);
        hp->kept_fds--;
    }
    free(rec);
}

/* Empty slot h, then move later members of its probe run back into the hole
 * when their home slot allows it. Holes only move forward, so a caller walking
 * the table upwards re-checks slot h and sees every live entry. */
static void hp_slot_delete(struct gs_hostproc *hp, uint32_t h)
{
    uint32_t mask = hp->nslots - 1, j = h;

    hp->slots[h].rec = NULL;
    for (;;) {
        j = (j + 1) & mask;
        if (!hp->slots[j].rec)
            return;
        uint32_t home = hp_hash(hp->slots[j].pid, hp->nslots);
        bool stays = h <= j ? (home > h && home <= j) : (home > h || home <= j);
        if (stays)
            continue;
        hp->slots[h] = hp->slots[j];
        hp->slots[j].rec = NULL;
        h = j;
    }
}

/* ---- 4. uid -> user name ------------------------------------------------------------ */

/* Name of uid (its number when the passwd database has none), cached per handle. */
static void hp_user_name(struct gs_hostproc *hp, uint32_t uid, char *name, size_t cap)
{
    struct passwd pw, *res = NULL;
    char buf[4096];

    for (uint32_t i = 0; i < hp->nusers; i++) {
        if (hp->users[i].uid == uid) {
            hp_copy_str(name, cap, hp->users[i].name);
            return;
        }
    }
    if (getpwuid_r((uid_t)uid, &pw, buf, sizeof(buf), &res) == 0 && res && res->pw_name[0])
        hp_copy_str(name, cap, res->pw_name);
    else
        snprintf(name, cap, "%u", uid);
    if (hp->nusers == hp->users_cap) {
        uint32_t ncap = hp->users_cap ? hp->users_cap * 2 : 8;
        struct hp_user *u = realloc(hp->users, ncap * sizeof(*u));
        if (!u)
            return; /* not cached: looked up again next time */
        hp->users = u;
        hp->users_cap = ncap;
    }
    hp->users[hp->nusers].uid = uid;
    hp_copy_str(hp->users[hp->nusers].name, sizeof(hp->users[0].name), name);
    hp->nusers++;
}

/* ---- 5. per-PID refresh and the tick API ---------------------------------------------- */

#define HP_TICK_MASK ((1u << GS_P_CPU) | (1u << GS_P_RSS))
#define HP_IDENTITY_MASK                                                                          \
    ((1u << GS_P_USER) | (1u << GS_P_COMM) | (1u << GS_P_CONTAINER) | (1u << GS_P_POD))

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

static void hp_drop_fd(struct gs_hostproc *hp, struct hp_rec *r)
{
    if (r->live_fd >= 0) {
        close(r->live_fd);
        r->live_fd = -1;
        hp->kept_fds--;
    }
}

/* /proc/PID cannot be read. A process we saw before has exited (keep what
 * described it, drop the live readings); otherwise say why it is invisible. */
static void hp_mark_gone(struct hp_rec *r, int err)
{
    struct gs_proc *h = &r->host;

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

static void hp_set_cmdline(struct gs_proc *h, char *buf, size_t n)
{
    while (n > 0 && (buf[n - 1] == '\0' || buf[n - 1] == ' '))
        n--;
    for (size_t i = 0; i < n; i++)
        if (buf[i] == '\0')
            buf[i] = ' ';
    buf[n] = '\0';
    hp_sanitize(buf);
    hp_copy_str(h->cmdline, sizeof(h->cmdline), buf);
}

/* What cannot change for one process: command line, user, container, pod.
 * Returns -1 when the process vanished meanwhile (r is then marked). */
static int hp_load_identity(struct gs_hostproc *hp, struct hp_rec *r)
{
    char buf[HP_CGROUP_BUF];
    struct gs_proc *h = &r->host;
    ssize_t n;

    h->valid &= ~HP_IDENTITY_MASK;
    h->cmdline[0] = h->user[0] = '\0';
    n = hp_read_pid_file(hp->root_fd, r->pid, "cmdline", buf, GS_CMDLINE_MAX);
    if (n < 0) {
        hp_mark_gone(r, (int)-n);
        return -1;
    }
    hp_set_cmdline(h, buf, (size_t)n);
    n = hp_read_pid_file(hp->root_fd, r->pid, "status", buf, HP_STATUS_BUF);
    if (n > 0 && hp_parse_status_uid(buf, (size_t)n, &h->uid) == 0) {
        hp_user_name(hp, h->uid, h->user, sizeof(h->user));
        gs_proc_set(h, GS_P_USER);
    }
    n = hp_read_pid_file(hp->root_fd, r->pid, "cgroup", buf, sizeof(buf));
    if (n > 0)
        gs_hostproc_parse_cgroup(buf, (size_t)n, h);
    return 0;
}

/* CPU % over the time since the previous reading of the same kind. */
static void hp_update_cpu(struct gs_hostproc *hp, struct hp_rec *r, uint64_t cpu_ns)
{
    struct gs_proc *h = &r->host;

    if (r->cpu_prev_ok && hp->now_ns > r->prev_ns && cpu_ns >= r->prev_cpu_ns) {
        h->cpu_pct = 100.0 * (double)(cpu_ns - r->prev_cpu_ns) / (double)(hp->now_ns - r->prev_ns);
        gs_proc_set(h, GS_P_CPU);
    }
    r->prev_cpu_ns = cpu_ns;
    r->prev_ns = hp->now_ns;
    r->cpu_prev_ok = true;
}

static void hp_set_start(struct gs_hostproc *hp, struct gs_proc *h)
{
    if (gs_proc_has(h, GS_P_START))
        h->age_s = hp->now_s > h->start_time ? (uint64_t)(hp->now_s - h->start_time) : 0;
}

/* Facts from a parsed stat: comm, parent, group, start; CPU and RSS only when
 * stat is this handle's per-tick source (a fixture tree, another namespace). */
static void hp_apply_stat(struct gs_hostproc *hp, struct hp_rec *r, const struct gs_proc_stat *st,
                          bool live)
{
    struct gs_proc *h = &r->host;

    hp_copy_str(h->comm, sizeof(h->comm), st->comm);
    gs_proc_set(h, GS_P_COMM);
    h->ppid = st->ppid;
    h->pgid = st->pgid;
    gs_proc_set(h, GS_P_PARENT);
    if (hp->btime_ok) {
        h->start_time = hp->btime_s + (int64_t)(st->start_ticks / (uint64_t)hp->clk_tck);
        gs_proc_set(h, GS_P_START);
        hp_set_start(hp, h);
    }
    r->stat_ns = hp->now_ns;
    if (!live)
        return;
    h->rss_bytes = st->rss_pages * (uint64_t)hp->page_bytes;
    gs_proc_set(h, GS_P_RSS);
    hp_update_cpu(hp, r, st->cpu_ticks * (1000000000u / (uint64_t)hp->clk_tck));
}

/* RSS from PID/statm ("size resident shared ..." in pages). */
static void hp_apply_statm(struct gs_hostproc *hp, struct gs_proc *h, const char *buf, size_t n)
{
    const char *end = buf + n, *s = hp_skip_field(buf, end);
    uint64_t pages;

    h->valid &= ~(1u << GS_P_RSS);
    if (s && hp_field_u64(s, end, &pages)) {
        h->rss_bytes = pages * (uint64_t)hp->page_bytes;
        gs_proc_set(h, GS_P_RSS);
    }
}

/* A fresh stat read for comm/parent/group, every HP_STAT_REFRESH_NS. */
static void hp_refresh_stat_facts(struct gs_hostproc *hp, struct hp_rec *r)
{
    char buf[HP_STAT_BUF];
    struct gs_proc_stat st;
    ssize_t n = hp_read_pid_file(hp->root_fd, r->pid, "stat", buf, sizeof(buf));

    r->stat_ns = hp->now_ns; /* also on failure: try again next period */
    if (n > 0 && gs_hostproc_parse_stat(buf, (size_t)n, &st) == 0 && st.start_ticks == r->start_ticks) {
        hp_sanitize(st.comm);
        hp_apply_stat(hp, r, &st, false);
    }
}

/* The kept descriptor, which pins the process: 0 when it answered, -1 when
 * the process behind it is gone (then the caller looks the PID up afresh). */
static int hp_refresh_kept(struct gs_hostproc *hp, struct hp_rec *r)
{
    char buf[HP_STAT_BUF];
    struct gs_proc_stat st;
    uint64_t cpu_ns = 0;
    /* CPU clock first: if the pinned process still answers afterwards, the
     * PID number still belonged to it when the clock was read. */
    bool cpu_ok = hp->own_ns && hp_cpu_ns(r->pid, &cpu_ns) == 0;
    ssize_t n = hp_pread_all(r->live_fd, buf, sizeof(buf) - 1);

    if (n <= 0) {
        hp_drop_fd(hp, r);
        return -1;
    }
    if (!hp->own_ns) { /* another namespace's procfs: stat is the source */
        if (gs_hostproc_parse_stat(buf, (size_t)n, &st) < 0 || st.start_ticks != r->start_ticks) {
            hp_drop_fd(hp, r);
            return -1;
        }
        hp_sanitize(st.comm);
        hp_apply_stat(hp, r, &st, true);
        return 0;
    }
    hp_apply_statm(hp, &r->host, buf, (size_t)n);
    if (cpu_ok)
        hp_update_cpu(hp, r, cpu_ns);
    else
        r->host.valid &= ~(1u << GS_P_CPU);
    hp_set_start(hp, &r->host);
    if (hp->now_ns - r->stat_ns >= HP_STAT_REFRESH_NS)
        hp_refresh_stat_facts(hp, r);
    return 0;
}

/* stat was read but does not parse (truncated, unexpected kernel): the process
 * is there; give what the other files say, without caching (no start time). */
static void hp_refresh_unparsed(struct gs_hostproc *hp, struct hp_rec *r)
{
    char buf[32];
    ssize_t n;

    r->identity_known = false;
    r->cpu_prev_ok = false;
    r->host.valid &= ~HP_HOST_MASK;
    if (hp_load_identity(hp, r) < 0)
        return;
    n = hp_read_pid_file(hp->root_fd, r->pid, "comm", buf, sizeof(buf));
    if (n > 0) {
        while (n > 0 && buf[n - 1] == '\n')
            buf[--n] = '\0';
        hp_copy_str(r->host.comm, sizeof(r->host.comm), buf);
        hp_sanitize(r->host.comm);
        gs_proc_set(&r->host, GS_P_COMM);
    }
    r->host.host_vis = GS_HOST_VISIBLE;
    r->ever_visible = true;
}

/* On procfs, open the descriptor later ticks read (statm in our own PID
 * namespace, stat in another), within the descriptor budget. It is opened
 * BEFORE stat is read, so it pins the process stat then describes (or an
 * older one, which the next tick notices). */
static void hp_keep_fd(struct gs_hostproc *hp, struct hp_rec *r)
{
    if (r->live_fd >= 0 || !hp->is_procfs || hp->kept_fds >= hp->max_kept_fds)
        return;
    r->live_fd = hp_open_pid_file(hp->root_fd, r->pid, hp->own_ns ? "statm" : "stat");
    if (r->live_fd >= 0)
        hp->kept_fds++;
}

/* Our own PID namespace: CPU from the process CPU clock (all threads, in ns),
 * RSS from statm (read on the kept descriptor when there is one). */
static void hp_refresh_own(struct gs_hostproc *hp, struct hp_rec *r)
{
    char buf[HP_STAT_BUF];
    uint64_t cpu_ns = 0;
    bool cpu_ok = hp_cpu_ns(r->pid, &cpu_ns) == 0;
    ssize_t n = r->live_fd >= 0 ? hp_pread_all(r->live_fd, buf, sizeof(buf) - 1)
                                : hp_read_pid_file(hp->root_fd, r->pid, "statm", buf, sizeof(buf));

    if (n <= 0) { /* vanished between the reads */
        hp_drop_fd(hp, r);
        hp_mark_gone(r, n < 0 ? (int)-n : ESRCH);
        return;
    }
    hp_apply_statm(hp, &r->host, buf, (size_t)n);
    if (cpu_ok)
        hp_update_cpu(hp, r, cpu_ns);
    else
        r->host.valid &= ~(1u << GS_P_CPU);
}

/* First sight of a PID, or its kept descriptor went stale: read it all. */
static void hp_refresh_full(struct gs_hostproc *hp, struct hp_rec *r)
{
    char buf[HP_STAT_BUF];
    struct gs_proc_stat st;
    ssize_t n;

    hp_keep_fd(hp, r);
    n = hp_read_pid_file(hp->root_fd, r->pid, "stat", buf, sizeof(buf));
    if (n < 0 || gs_hostproc_parse_stat(buf, (size_t)n, &st) < 0) {
        hp_drop_fd(hp, r);
        if (n < 0)
            hp_mark_gone(r, (int)-n);
        else
            hp_refresh_unparsed(hp, r);
        return;
    }
    hp_sanitize(st.comm);
    r->ever_visible = true; /* from here on, vanishing means "exited" */
    if (!r->identity_known || r->start_ticks != st.start_ticks) {
        if (r->start_ticks != st.start_ticks) { /* a new process behind the PID */
            r->cpu_prev_ok = false;
            r->host.valid &= ~HP_HOST_MASK;
        }
        r->identity_known = false;
        if (hp_load_identity(hp, r) < 0) {
            hp_drop_fd(hp, r);
            return;
        }
        r->start_ticks = st.start_ticks;
        r->identity_known = true;
    }
    r->host.host_vis = GS_HOST_VISIBLE;
    hp_apply_stat(hp, r, &st, !hp->own_ns);
    if (hp->own_ns)
        hp_refresh_own(hp, r);
}

static void hp_refresh(struct gs_hostproc *hp, struct hp_rec *r)
{
    if (r->live_fd >= 0 && hp_refresh_kept(hp, r) == 0)
        return;
    hp_refresh_full(hp, r);
}
static void hp_copy_host(struct gs_proc *dst, const struct gs_proc *src)
{
    dst->valid = (dst->valid & ~HP_HOST_MASK) | (src->valid & HP_HOST_MASK);
    dst->host_vis = src->host_vis;
    dst->uid = src->uid;
    memcpy(dst->user, src->user, sizeof(dst->user));
    memcpy(dst->comm, src->comm, sizeof(dst->comm));
    memcpy(dst->cmdline, src->cmdline, sizeof(dst->cmdline));
    dst->cpu_pct = src->cpu_pct;
    dst->rss_bytes = src->rss_bytes;
    dst->start_time = src->start_time;
    dst->age_s = src->age_s;
    dst->ppid = src->ppid;
    dst->pgid = src->pgid;
    memcpy(dst->container_id, src->container_id, sizeof(dst->container_id));
    memcpy(dst->container_runtime, src->container_runtime, sizeof(dst->container_runtime));
    memcpy(dst->pod_uid, src->pod_uid, sizeof(dst->pod_uid));
}

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
    hp->root_fd = open(proc_root ? proc_root : "/proc", O_PATH | O_DIRECTORY | O_CLOEXEC);
    hp->is_procfs = hp->root_fd >= 0 && fstatfs(hp->root_fd, &sfs) == 0 &&
                    sfs.f_type == HP_PROC_SUPER_MAGIC;
    hp->own_ns = hp->is_procfs && hp_is_own_ns(hp->root_fd);
    hp->clk_tck = sysconf(_SC_CLK_TCK);
    if (hp->clk_tck <= 0)
        hp->clk_tck = 100;
    hp->page_bytes = sysconf(_SC_PAGESIZE);
    if (hp->page_bytes <= 0)
        hp->page_bytes = 4096;
    hp->max_kept_fds = hp_fd_budget();
    hp->btime_ok = hp_read_btime(hp->root_fd, &hp->btime_s) == 0;
    hp->tick = 1;
    *out = hp;
    return 0;
}

void gs_hostproc_close(struct gs_hostproc *hp)
{
    if (!hp)
        return;
    for (uint32_t i = 0; i < hp->nslots; i++)
        if (hp->slots[i].rec)
            hp_rec_free(hp, hp->slots[i].rec);
    free(hp->slots);
    free(hp->users);
    if (hp->root_fd >= 0)
        close(hp->root_fd);
    free(hp);
}

void gs_hostproc_begin(struct gs_hostproc *hp, uint64_t now_ns, int64_t now_s)
{
    hp->tick++;
    hp->now_ns = now_ns;
    hp->now_s = now_s;
}

void gs_hostproc_fill(struct gs_hostproc *hp, struct gs_proc *p)
{
    struct hp_rec tmp, *r = hp_lookup_add(hp, p->pid);

    if (!r) { /* out of memory: read it uncached rather than not at all */
        memset(&tmp, 0, sizeof(tmp));
        tmp.pid = p->pid;
        tmp.live_fd = -1;
        r = &tmp;
    }
    if (r->seen_tick != hp->tick) {
        hp_refresh(hp, r);
        r->seen_tick = hp->tick;
    }
    hp_copy_host(p, &r->host);
    if (r == &tmp)
        hp_drop_fd(hp, &tmp);
}

void gs_hostproc_end(struct gs_hostproc *hp)
{
    for (uint32_t i = 0; i < hp->nslots; i++) {
        struct hp_rec *r;
        /* hp_slot_delete may pull a later entry into slot i: look again. */
        while ((r = hp->slots[i].rec) && r->seen_tick != hp->tick) {
            hp_rec_free(hp, r);
            hp_slot_delete(hp, i);
            hp->nrecs--;
        }
    }
}
