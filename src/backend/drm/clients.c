/* SPDX-License-Identifier: MIT */
/*
 * clients.c - the DRM clients of the machine, from /proc (see clients.h).
 * Contents:
 *   1. the process table (one /proc listing per tick, merged into it; whether
 *      to list: lastpid.c)
 *   2. finding the DRM fds of a process (its fd directory)
 *   3. the client table (previous readings, for deltas)
 *   4. one tick: fdinfo of every DRM holder, per GPU and per process
 *   5. the public API
 */
#include "backend/drm/clients.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "backend/drm/lastpid.h"
#include "backend/drm/sysval.h"
#include "lib/roots.h"
#include "lib/vec.h"

#define DC_MAX_GPUS 32
#define DC_MAX_FDS 16               /* DRM fds of one process we follow */
#define DC_RESCAN_NS UINT64_C(5000000000) /* a process's fd directory: again after 2.5..5 s */
#define DC_FDINFO_BUF 4096          /* xe prints ~40 lines, amdgpu ~30 */
#define DC_MAX_KEPT 4096            /* kept fdinfo fds at most (and a quarter of RLIMIT_NOFILE) */
#define DC_RELIST_NS UINT64_C(5000000000) /* /proc listed at least this often (see dc_must_list) */
#define DC_FD_DUP (-3)              /* dc_fd.gpu of a duplicate (see dc_read_fd) */

/* One DRM fd of a holder: its number and the GPU its node belongs to. */
struct dc_fd {
    int fd;
    int gpu;                        /* slot by the node's minor; -1: unknown (ask drm-pdev); -2: not ours;
                                     * DC_FD_DUP: a second fd to a client another fd of this process
                                     * shows (not read until the fd directory is read again) */
    int info;                       /* its fdinfo, kept open (one pread a tick); -1: opened per read */
    bool shown;                     /* shown, client: the client its latest read showed */
    uint64_t client;
};

/* A process that holds DRM fds. */
struct dc_holder {
    int dirfd;                      /* O_PATH <proc>/PID: pins the process */
    uint32_t nfds;
    struct dc_fd fds[DC_MAX_FDS];
    bool in_use;
};

/* Every process of the latest listing, sorted by pid. */
struct dc_pid {
    uint32_t pid;
    int holder;                     /* index into holders[], -1: holds no DRM fd */
    uint64_t next_scan_ns;          /* when to read its fd directory again */
    bool unreadable;                /* its fd directory is another user's */
};

/* A client's previous reading. */
struct dc_client {
    int gpu;
    uint64_t id;
    uint64_t tick;                  /* scan that last saw it */
    uint32_t pid;                   /* the process it was counted for in that scan */
    uint64_t at_ns;                 /* when engine_ns was read */
    uint32_t have_ns, have_cycles;
    uint64_t ns[GS_MAX_ENGINES], cyc[GS_MAX_ENGINES], tot[GS_MAX_ENGINES];
};

/* Per-GPU accumulation during a scan (engine shares before rounding). */
struct dc_acc {
    double gpu_share[DC_MAX_GPUS][GS_MAX_ENGINES];
    double proc_share[DC_MAX_GPUS][GS_MAX_ENGINES]; /* the current process's, on each GPU */
};

struct gs_drmc {
    int root_fd;                    /* <proc> */
    DIR *root_dir;                  /* listing of <proc>, rewound each tick */
    struct gs_drmc_gpu gpus[DC_MAX_GPUS];
    int ngpus;
    struct dc_pid *pids, *next;     /* this and the next listing */
    uint32_t npids, pids_cap;
    struct dc_holder *holders;
    uint32_t nholders, holders_cap;
    struct dc_client *clients;
    uint32_t nclients, clients_cap;
    uint32_t client_hint;           /* the last client found: a scan meets them in the same order */
    uint64_t tick;                  /* scans done */
    uint64_t now_ns, prev_now_ns;
    bool scanned;                   /* this tick's scan is done */
    bool complete;
    struct gs_drmc_stats st;
    uint32_t *listing;              /* the latest /proc listing (reused) */
    uint32_t listing_cap;
    struct dc_acc acc;              /* this scan's sums */
    uint32_t kept, max_kept;        /* fdinfo fds kept open, and the budget */
    int loadavg_fd;                 /* <proc>/loadavg when its last PID is <proc>'s; -1: list every tick */
    uint64_t last_pid;              /* its last-PID field when /proc was last listed */
    uint64_t listed_ns;             /* when /proc was last listed */
    bool listed, relist;            /* listed once; list again at the next tick */
};

static void *dc_grow(void *p, uint32_t *cap, uint32_t need, size_t size)
{
    size_t c = *cap; /* the one policy (lib/vec), for the tables' 32-bit counts */
    void *q = need <= UINT32_MAX / 2 ? gs_vec_grow(p, &c, need, size) : NULL;
    if (q)
        *cap = (uint32_t)c;
    return q;
}

/* ---- 1. the process table ------------------------------------------------------------------ */

static int dc_cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* The PIDs of <proc>, sorted, into *out (n entries). 0 or -errno. */
static int dc_list(struct gs_drmc *c, uint32_t **out, uint32_t *n, uint32_t *cap)
{
    struct dirent *e;
    bool up = true, down = true;

    *n = 0;
    rewinddir(c->root_dir);
    errno = 0;
    while ((e = readdir(c->root_dir)) != NULL) {
        const char *s = e->d_name;
        uint32_t pid = 0;
        if (*s < '1' || *s > '9')
            continue;
        for (; *s >= '0' && *s <= '9'; s++)
            pid = pid * 10 + (uint32_t)(*s - '0');
        if (*s)
            continue;
        uint32_t *p = dc_grow(*out, cap, *n + 1, sizeof(**out));
        if (!p)
            return -ENOMEM;
        *out = p;
        if (*n && p[*n - 1] > pid)
            up = false;
        else if (*n)
            down = false;
        p[(*n)++] = pid;
    }
    /* procfs lists in PID order; a fixture tree on tmpfs newest first, or any order */
    if (!up && down)
        for (uint32_t i = 0, j = *n - 1; i < j; i++, j--) {
            uint32_t t = (*out)[i];
            (*out)[i] = (*out)[j];
            (*out)[j] = t;
        }
    else if (!up)
        qsort(*out, *n, sizeof(**out), dc_cmp_u32);
    c->st.pids_listed += *n;
    return 0;
}

/* Must /proc be listed this tick? A process can appear only by taking a new PID,
 * and the kernel's last PID (loadavg) changes with each one, so while it stays
 * the same no process is missing from the latest listing. Processes that exit
 * need no listing: a holder's read fails at once, and the others are dropped
 * at the next one. The listing after a change is repeated at the next tick, so
 * a fork still between its PID and its /proc entry then (under a microsecond,
 * unless preempted there for a whole tick) is found at that second listing;
 * and /proc is listed at least every DC_RELIST_NS (5 s, the same bound as a
 * process's fd directory rescan) whatever loadavg says. *lp: the value read. */
static bool dc_must_list(struct gs_drmc *c, int64_t *lp)
{
    *lp = gs_drm_last_pid(c->loadavg_fd);
    return !c->listed || c->relist || *lp < 0 || (uint64_t)*lp != c->last_pid ||
           c->now_ns < c->listed_ns || c->now_ns - c->listed_ns >= DC_RELIST_NS;
}

/* Close the fdinfo fds a holder keeps (before its fd list is replaced or dropped). */
static void dc_holder_unkeep(struct gs_drmc *c, struct dc_holder *h)
{
    for (uint32_t k = 0; k < h->nfds; k++)
        if (h->fds[k].info >= 0) {
            close(h->fds[k].info);
            h->fds[k].info = -1;
            c->kept--;
        }
}

static void dc_holder_free(struct gs_drmc *c, int h)
{
    if (h < 0)
        return;
    dc_holder_unkeep(c, &c->holders[h]);
    c->holders[h].nfds = 0;
    if (c->holders[h].dirfd >= 0)
        close(c->holders[h].dirfd);
    c->holders[h].in_use = false;
    c->holders[h].dirfd = -1;
}

static int dc_holder_new(struct gs_drmc *c)
{
    for (uint32_t i = 0; i < c->nholders; i++)
        if (!c->holders[i].in_use)
            return (int)i;
    struct dc_holder *h = dc_grow(c->holders, &c->holders_cap, c->nholders + 1, sizeof(*h));
    if (!h)
        return -1;
    c->holders = h;
    memset(&h[c->nholders], 0, sizeof(*h));
    h[c->nholders].dirfd = -1;
    return (int)c->nholders++;
}

/* Merge the new listing into the table: new PIDs are due for a look at
 * once, vanished ones are dropped (with their kept directory). */
static int dc_merge(struct gs_drmc *c, const uint32_t *pids, uint32_t n)
{
    uint32_t cap = c->pids_cap, i = 0;
    struct dc_pid *nx = c->next;

    if (n > cap) { /* both arrays grow from one capacity: the smaller of the two is kept */
        uint32_t ca = cap, cb = cap;
        struct dc_pid *a = dc_grow(c->pids, &ca, n, sizeof(*a));
        if (!a)
            return -ENOMEM;
        c->pids = a;
        struct dc_pid *b = dc_grow(c->next, &cb, n, sizeof(*b));
        if (!b)
            return -ENOMEM;
        c->next = nx = b;
        c->pids_cap = ca < cb ? ca : cb;
    }
    for (uint32_t k = 0; k < n; k++) {
        while (i < c->npids && c->pids[i].pid < pids[k])
            dc_holder_free(c, c->pids[i++].holder);
        if (i < c->npids && c->pids[i].pid == pids[k]) {
            nx[k] = c->pids[i++];
            continue;
        }
        nx[k] = (struct dc_pid){ .pid = pids[k], .holder = -1, .next_scan_ns = 0 };
    }
    while (i < c->npids)
        dc_holder_free(c, c->pids[i++].holder);
    c->next = c->pids;
    c->pids = nx;
    c->npids = n;
    return 0;
}

/* ---- 2. the DRM fds of a process -------------------------------------------------------------- */

/* "/dev/dri/renderD128" -> the GPU slot of that node; -1 unknown, -2 not a DRM node. */
static int dc_node_gpu(const struct gs_drmc *c, const char *link)
{
    static const char dri[] = "/dev/dri/";
    const char *p;
    int minor = 0;
    bool render;

    if (strncmp(link, dri, sizeof(dri) - 1) != 0)
        return -2;
    p = link + sizeof(dri) - 1;
    if (!strncmp(p, "renderD", 7))
        render = true, p += 7;
    else if (!strncmp(p, "card", 4))
        render = false, p += 4;
    else
        return -2;
    if (*p < '0' || *p > '9')
        return -2;
    for (; *p >= '0' && *p <= '9' && minor < 100000; p++)
        minor = minor * 10 + (*p - '0');
    for (int g = 0; g < c->ngpus; g++)
        if ((render ? c->gpus[g].id.render_minor : c->gpus[g].id.card_minor) == minor)
            return g;
    return -1; /* a DRM node of a GPU we do not track: its fdinfo says whose */
}

/* Read dfd (an fd directory) for DRM nodes into h. Returns how many. */
static uint32_t dc_read_fds(struct gs_drmc *c, DIR *d, struct dc_holder *h)
{
    struct dirent *e;
    char link[64];

    h->nfds = 0;
    while ((e = readdir(d)) != NULL) {
        char *end;
        long fdno = strtol(e->d_name, &end, 10);
        if (e->d_name[0] < '0' || e->d_name[0] > '9' || *end || fdno > INT32_MAX)
            continue;
        ssize_t n = readlinkat(dirfd(d), e->d_name, link, sizeof(link) - 1);
        c->st.links_read++;
        if (n <= 0)
            continue;
        link[n] = '\0';
        int gpu = dc_node_gpu(c, link);
        if (gpu == -2 || h->nfds >= DC_MAX_FDS)
            continue;
        h->fds[h->nfds].fd = (int)fdno;
        h->fds[h->nfds].gpu = gpu;
        h->fds[h->nfds].info = -1;
        h->fds[h->nfds].shown = false;
        h->nfds++;
    }
    return h->nfds;
}

/* When to look into p's fd directory again: 2.5..5 s, each PID on its own phase. */
static uint64_t dc_next_scan(const struct gs_drmc *c, uint32_t pid)
{
    return c->now_ns + DC_RESCAN_NS / 2 + (DC_RESCAN_NS / 2) / 16 * ((pid * 2654435761u) >> 28);
}

/* Look into p's fd directory: it becomes (or stays) a holder, or not. */
static void dc_scan_pid(struct gs_drmc *c, struct dc_pid *p)
{
    char path[32];
    int dfd;

    p->next_scan_ns = dc_next_scan(c, p->pid);
    if (p->holder >= 0 && c->holders[p->holder].dirfd >= 0) {
        dfd = openat(c->holders[p->holder].dirfd, "fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    } else {
        snprintf(path, sizeof(path), "%u/fd", p->pid);
        dfd = openat(c->root_fd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    }
    p->unreadable = dfd < 0 && (errno == EACCES || errno == EPERM);
    if (dfd < 0) {
        dc_holder_free(c, p->holder);
        p->holder = -1;
        return;
    }
    DIR *d = fdopendir(dfd);
    if (!d) {
        close(dfd);
        return;
    }
    c->st.fd_dirs_read++;
    struct dc_holder tmp;
    uint32_t n = dc_read_fds(c, d, &tmp);
    closedir(d);
    if (!n) {
        dc_holder_free(c, p->holder);
        p->holder = -1;
        return;
    }
    if (p->holder < 0 && (p->holder = dc_holder_new(c)) < 0)
        return;
    struct dc_holder *h = &c->holders[p->holder];
    if (h->dirfd < 0) {
        snprintf(path, sizeof(path), "%u", p->pid);
        h->dirfd = openat(c->root_fd, path, O_PATH | O_DIRECTORY | O_CLOEXEC);
    }
    dc_holder_unkeep(c, h);
    h->nfds = tmp.nfds;
    memcpy(h->fds, tmp.fds, sizeof(tmp.fds));
    h->in_use = true;
}

/* ---- 3. the client table ------------------------------------------------------------------------ */

static struct dc_client *dc_client(struct gs_drmc *c, int gpu, uint64_t id, bool *fresh)
{
    /* from the last one found: each scan reads the clients in the previous scan's order,
     * so this is the first or second look; a dup fd finds its client at once */
    uint32_t i = c->client_hint < c->nclients ? c->client_hint : 0;
    for (uint32_t n = 0; n < c->nclients; n++, i = i + 1 < c->nclients ? i + 1 : 0)
        if (c->clients[i].gpu == gpu && c->clients[i].id == id) {
            *fresh = false;
            c->client_hint = i;
            return &c->clients[i];
        }
    struct dc_client *a = dc_grow(c->clients, &c->clients_cap, c->nclients + 1, sizeof(*a));
    if (!a)
        return NULL;
    c->clients = a;
    *fresh = true;
    memset(&a[c->nclients], 0, sizeof(*a));
    a[c->nclients].gpu = gpu;
    a[c->nclients].id = id;
    c->client_hint = c->nclients;
    return &a[c->nclients++];
}

/* Forget clients the latest scan did not see. */
static void dc_clients_sweep(struct gs_drmc *c)
{
    uint32_t k = 0;
    for (uint32_t i = 0; i < c->nclients; i++)
        if (c->clients[i].tick == c->tick)
            c->clients[k++] = c->clients[i];
    c->nclients = k;
    c->client_hint = 0;
}

/* Busy share of each engine since the client's previous reading (0..1 per
 * engine of the class: divided by the capacity). Counters that went back
 * keep the larger previous value until they catch up (drm-usage-stats). An
 * engine the previous reading lacked had not been used yet: amdgpu prints
 * only the engines a client has used, so its first use counts from 0. */
static void dc_client_util(struct dc_client *cl, const struct gs_fdinfo *f, uint64_t now_ns, bool fresh,
                           double *share)
{
    for (unsigned s = 0; s < GS_MAX_ENGINES; s++) {
        share[s] = 0;
        double cap = f->capacity[s] ? f->capacity[s] : 1;
        if (f->have_cycles & (1u << s)) {
            bool prev = !fresh && (cl->have_cycles & (1u << s));
            if (prev && f->cycles[s] >= cl->cyc[s] && f->total_cycles[s] > cl->tot[s])
                share[s] = (double)(f->cycles[s] - cl->cyc[s]) / ((double)(f->total_cycles[s] - cl->tot[s]) * cap);
            if (!prev || (f->cycles[s] >= cl->cyc[s] && f->total_cycles[s] >= cl->tot[s])) {
                cl->cyc[s] = f->cycles[s];
                cl->tot[s] = f->total_cycles[s];
            }
        } else if (f->have_ns & (1u << s)) {
            bool prev = !fresh;
            if (!(cl->have_ns & (1u << s)))
                cl->ns[s] = 0;
            if (prev && f->engine_ns[s] >= cl->ns[s] && now_ns > cl->at_ns)
                share[s] = (double)(f->engine_ns[s] - cl->ns[s]) / ((double)(now_ns - cl->at_ns) * cap);
            if (!prev || f->engine_ns[s] >= cl->ns[s])
                cl->ns[s] = f->engine_ns[s];
        }
        if (share[s] > 1)
            share[s] = 1; /* a counter that caught up after going back */
    }
    cl->have_ns |= f->have_ns;
    cl->have_cycles |= f->have_cycles;
    cl->at_ns = now_ns;
}

/* ---- 4. one tick ---------------------------------------------------------------------------------- */

static int dc_gpu_by_pdev(const struct gs_drmc *c, const char *pdev)
{
    for (int g = 0; g < c->ngpus; g++)
        if (!strcasecmp(c->gpus[g].id.bdf, pdev))
            return g;
    return -1;
}

/* The process's entry on GPU g (appended when it is the first client there). */
static struct gs_drmc_proc *dc_proc_on(struct gs_drmc *c, int g, uint32_t pid)
{
    struct gs_drmc_gpu *G = &c->gpus[g];
    if (G->nprocs && G->procs[G->nprocs - 1].pid == pid)
        return &G->procs[G->nprocs - 1];
    struct gs_drmc_proc *a = dc_grow(G->procs, &G->procs_cap, G->nprocs + 1, sizeof(*a));
    if (!a)
        return NULL;
    G->procs = a;
    memset(&a[G->nprocs], 0, sizeof(*a));
    a[G->nprocs].pid = pid;
    a[G->nprocs].util_ok = c->tick > 1;
    return &a[G->nprocs++];
}

/* One client read from fdinfo: attribute it (once) and add its share. Returns
 * true when this process had already shown the client in this scan (a dup). */
static bool dc_account(struct gs_drmc *c, struct dc_acc *acc, uint32_t pid, int gpu, uint64_t id,
                       const struct gs_fdinfo *f)
{
    bool fresh;
    double share[GS_MAX_ENGINES];
    struct dc_client *cl = dc_client(c, gpu, id, &fresh);

    if (!cl)
        return false;
    if (!fresh && cl->tick == c->tick)
        return cl->pid == pid; /* a duplicated fd or a shared client: counted where first seen */
    cl->tick = c->tick;
    cl->pid = pid;
    dc_client_util(cl, f, c->now_ns, fresh, share);
    struct gs_drmc_proc *p = dc_proc_on(c, gpu, pid);
    if (!p)
        return false;
    p->clients++;
    if (fresh)
        p->util_ok = false;
    for (unsigned s = 0; s < GS_MAX_ENGINES; s++) {
        acc->gpu_share[gpu][s] += share[s];
        acc->proc_share[gpu][s] += share[s];
        if (share[s] > 0)
            p->engines_used |= 1u << s;
    }
    if (f->has_mem) {
        p->has_mem = true;
        p->dev_mem_bytes += f->mem_bytes[GS_FDINFO_MEM_DEVICE];
        p->sys_mem_bytes += f->mem_bytes[GS_FDINFO_MEM_SYSTEM];
        c->gpus[gpu].dev_mem_bytes += f->mem_bytes[GS_FDINFO_MEM_DEVICE];
        c->gpus[gpu].sys_mem_bytes += f->mem_bytes[GS_FDINFO_MEM_SYSTEM];
    }
    return false;
}

static uint16_t dc_pct(double share)
{
    double v = share * 100 + 0.5;
    return (uint16_t)(v > 100 ? 100 : v < 0 ? 0 : v);
}

/* fd's fdinfo text: a pread on its kept fdinfo fd, which procfs regenerates at
 * offset 0 for the fd number as it is now (a closed fd answers ENOENT, an exited
 * process ESRCH); opened and kept at the first read while the budget lasts.
 * Empty text is a gone fd too: procfs always prints pos/flags/mnt_id, and a
 * fixture tree's writer (drmsim) cuts a fdinfo file to nothing before it removes
 * it, since a plain file would read on once unlinked. Bytes, or -errno. */
static ssize_t dc_fdinfo(struct gs_drmc *c, struct dc_holder *h, struct dc_fd *fd, char *buf, size_t cap)
{
    char path[32];
    ssize_t n;

    if (fd->info >= 0) {
        n = gs_sysval_pread(fd->info, buf, cap);
        return n == 0 ? -ENOENT : n;
    }
    snprintf(path, sizeof(path), "fdinfo/%d", fd->fd);
    int ifd = gs_sysval_open(h->dirfd, path);
    if (ifd < 0)
        return ifd;
    n = gs_sysval_pread(ifd, buf, cap);
    if (n == 0)
        n = -ENOENT;
    if (n > 0 && c->kept < c->max_kept) {
        fd->info = ifd;
        c->kept++;
    } else {
        close(ifd);
    }
    return n;
}

/* The GPU a client's drm-pdev names: the slot its node's minor gave first
 * (one compare), then the others. -1: none of ours. */
static int dc_fd_gpu(const struct gs_drmc *c, const struct dc_fd *fd, const char *pdev)
{
    if (fd->gpu >= 0 && !strcasecmp(c->gpus[fd->gpu].id.bdf, pdev))
        return fd->gpu;
    return dc_gpu_by_pdev(c, pdev);
}

/* What reading one DRM fd found. */
enum dc_read { DC_READ_OK, DC_READ_GONE, DC_READ_OTHER };

/* Read one DRM fd's fdinfo: DC_READ_GONE when the fd is gone, DC_READ_OTHER
 * when its number now shows another client than at its previous read (closed
 * and reopened: the fd directory is to be read again, for the marks below).
 * A second fd of this process to a client an earlier fd showed (dup, or one
 * passed over a socket) says the same: both are one open file. It is marked
 * and not read again until the fd directory is (2.5..5 s, or the tick after
 * an fd of the process went away or changed client), the bound a new DRM fd
 * is found in too. */
static enum dc_read dc_read_fd(struct gs_drmc *c, struct dc_acc *acc, uint32_t pid, struct dc_holder *h,
                               struct dc_fd *fd)
{
    char buf[DC_FDINFO_BUF];
    struct gs_fdinfo f;

    if (fd->gpu == -2 || fd->gpu == DC_FD_DUP)
        return DC_READ_OK;
    ssize_t n = dc_fdinfo(c, h, fd, buf, sizeof(buf));
    c->st.fdinfo_read++;
    if (n < 0)
        return DC_READ_GONE;
    if (gs_fdinfo_parse(buf, (size_t)n, &f) < 0) {
        fd->gpu = -2; /* not a client of a driver we read: stop reading it */
        return DC_READ_OK;
    }
    int gpu = f.pdev[0] ? dc_fd_gpu(c, fd, f.pdev) : fd->gpu;
    if (gpu < 0 || c->gpus[gpu].id.keys != f.keys) {
        fd->gpu = -2;
        return DC_READ_OK;
    }
    uint64_t id = f.has_client_id ? f.client_id : UINT64_MAX - (uint64_t)pid;
    enum dc_read rc = fd->shown && fd->client != id ? DC_READ_OTHER : DC_READ_OK;
    fd->shown = true;
    fd->client = id;
    if (dc_account(c, acc, pid, gpu, id, &f)) {
        fd->gpu = DC_FD_DUP;
        if (fd->info >= 0) { /* its kept fdinfo fd is not needed until then */
            close(fd->info);
            fd->info = -1;
            c->kept--;
        }
    }
    return rc;
}

/* Every DRM fd of one holder; rescans its fd directory when one vanished. */
static void dc_read_holder(struct gs_drmc *c, struct dc_acc *acc, struct dc_pid *p)
{
    struct dc_holder *h = &c->holders[p->holder];
    bool gone = h->dirfd < 0, other = false;

    memset(acc->proc_share, 0, sizeof(acc->proc_share));
    for (uint32_t k = 0; k < h->nfds && !gone; k++) {
        enum dc_read rc = dc_read_fd(c, acc, p->pid, h, &h->fds[k]);
        gone = rc == DC_READ_GONE;
        other |= rc == DC_READ_OTHER;
    }
    if (gone || other)
        p->next_scan_ns = 0; /* next tick looks again (fd closed or reused, or the process exited) */
    for (int g = 0; g < c->ngpus; g++) {
        struct gs_drmc_gpu *G = &c->gpus[g];
        if (!G->nprocs || G->procs[G->nprocs - 1].pid != p->pid)
            continue;
        for (unsigned s = 0; s < GS_MAX_ENGINES; s++)
            G->procs[G->nprocs - 1].engine_pct[s] = dc_pct(acc->proc_share[g][s]);
    }
}

static void dc_begin_gpus(struct gs_drmc *c)
{
    for (int g = 0; g < c->ngpus; g++) {
        c->gpus[g].nprocs = 0;
        c->gpus[g].dev_mem_bytes = c->gpus[g].sys_mem_bytes = 0;
        c->gpus[g].util_ok = c->tick > 1;
    }
}

/* List /proc and merge the listing into the table, when it must be (dc_must_list). */
static int dc_relist(struct gs_drmc *c)
{
    uint32_t n = 0;
    int64_t lp;

    if (!dc_must_list(c, &lp))
        return 0;
    int rc = dc_list(c, &c->listing, &n, &c->listing_cap);
    if (rc == 0)
        rc = dc_merge(c, c->listing, n);
    if (rc < 0)
        return rc;
    c->st.listings++;
    c->relist = !c->listed || (uint64_t)lp != c->last_pid; /* a change: list once more */
    c->last_pid = (uint64_t)lp;
    c->listed = true;
    c->listed_ns = c->now_ns;
    return 0;
}

static int dc_scan(struct gs_drmc *c)
{
    int rc = dc_relist(c);
    struct dc_acc *acc = &c->acc;

    if (rc < 0)
        return rc;
    memset(acc, 0, sizeof(*acc));
    c->tick++;
    c->st.scans++;
    c->complete = true;
    dc_begin_gpus(c);
    for (uint32_t i = 0; i < c->npids; i++) {
        struct dc_pid *p = &c->pids[i];
        if (c->now_ns >= p->next_scan_ns)
            dc_scan_pid(c, p);
        if (p->unreadable)
            c->complete = false;
        if (p->holder >= 0)
            dc_read_holder(c, acc, p);
    }
    for (int g = 0; g < c->ngpus; g++)
        for (unsigned s = 0; s < GS_MAX_ENGINES; s++)
            c->gpus[g].engine_pct[s] = dc_pct(acc->gpu_share[g][s]);
    dc_clients_sweep(c);
    return 0;
}

/* ---- 5. the public API ---------------------------------------------------------------------------- */

int gs_drmc_open(struct gs_drmc **out, const char *proc_root)
{
    struct gs_drmc *c = calloc(1, sizeof(*c));
    const char *root = gs_proc_root(proc_root);

    *out = NULL;
    if (!c)
        return -ENOMEM;
    c->root_fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    int dup_fd = c->root_fd >= 0 ? fcntl(c->root_fd, F_DUPFD_CLOEXEC, 0) : -1;
    if (dup_fd < 0 || !(c->root_dir = fdopendir(dup_fd))) {
        int e = errno ? -errno : -EIO;
        if (dup_fd >= 0)
            close(dup_fd);
        if (c->root_fd >= 0)
            close(c->root_fd);
        free(c);
        return e;
    }
    struct rlimit rl;
    c->max_kept = DC_MAX_KEPT; /* a quarter of the fd limit: host facts keep another quarter */
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur / 4 < DC_MAX_KEPT)
        c->max_kept = (uint32_t)(rl.rlim_cur / 4);
    c->complete = true;
    c->loadavg_fd = gs_drm_open_loadavg(c->root_fd);
    *out = c;
    return 0;
}

void gs_drmc_close(struct gs_drmc *c)
{
    if (!c)
        return;
    for (uint32_t i = 0; i < c->nholders; i++) {
        dc_holder_unkeep(c, &c->holders[i]);
        if (c->holders[i].dirfd >= 0)
            close(c->holders[i].dirfd);
    }
    for (int g = 0; g < c->ngpus; g++)
        free(c->gpus[g].procs);
    closedir(c->root_dir);
    close(c->root_fd);
    if (c->loadavg_fd >= 0)
        close(c->loadavg_fd);
    free(c->pids);
    free(c->next);
    free(c->holders);
    free(c->clients);
    free(c->listing);
    free(c);
}

int gs_drmc_add_gpu(struct gs_drmc *c, const struct gs_drmc_gpu_id *id)
{
    if (c->ngpus >= DC_MAX_GPUS)
        return -1;
    memset(&c->gpus[c->ngpus], 0, sizeof(c->gpus[0]));
    c->gpus[c->ngpus].id = *id;
    return c->ngpus++;
}

void gs_drmc_tick(struct gs_drmc *c, uint64_t now_ns)
{
    if (now_ns == c->now_ns && c->tick)
        return; /* the same instant (a simulator clock that did not move): same scan */
    c->prev_now_ns = c->now_ns;
    c->now_ns = now_ns;
    c->scanned = false;
}

int gs_drmc_scan(struct gs_drmc *c)
{
    if (c->scanned)
        return 0;
    c->scanned = true;
    return dc_scan(c);
}

bool gs_drmc_scanned(const struct gs_drmc *c)
{
    return c->scanned;
}

const struct gs_drmc_gpu *gs_drmc_gpu(const struct gs_drmc *c, int slot)
{
    return slot >= 0 && slot < c->ngpus ? &c->gpus[slot] : NULL;
}

bool gs_drmc_complete(const struct gs_drmc *c)
{
    return c->complete;
}

void gs_drmc_stats(const struct gs_drmc *c, struct gs_drmc_stats *out)
{
    *out = c->st;
}
