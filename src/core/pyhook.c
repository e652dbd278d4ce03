/* SPDX-License-Identifier: MIT */
/*
 * pyhook.c - finding and asking gpuscope's Python hook in a process (see
 * pyhook.h): where its socket is and whether it can be trusted, one blocking
 * request with a deadline (for `gpuscope pyhook` and top's stack view, never
 * on a sampler or UI thread), and the sampler's cache, which never waits:
 * requests go out with a non-blocking connect and send, replies are read as
 * they arrive, each process is asked at most every PYH_REFRESH_MS.
 */
#include "core/pyhook.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "core/paths.h"
#include "lib/clock.h"
#include "lib/vec.h"

#define PYH_REFRESH_MS 1000     /* ask a process again after this */
#define PYH_RECHECK_MS 10000    /* look for a socket again after at most this when there was none */
#define PYH_RECHECK_FIRST_MS 250 /* ... first after this: a process just started opens its socket soon */
#define PYH_TIMEOUT_MS 2000     /* give up on an answer after this */
#define PYH_INLINE_MS 250       /* GS_PYHOOK_INLINE: the wait for all processes of a snapshot */
#define PYH_FORGET_MS 30000     /* forget a process not seen for this long */
#define PYH_MAX_ENTRIES 4096

/* ---- where the socket is ---------------------------------------------------------------- */
/* A directory of uid that nobody else can write into. */
static bool private_dir(const char *path, uint32_t uid)
{
    struct stat st;
    return lstat(path, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == uid && !(st.st_mode & 022);
}

/* dir and its parent belong to uid alone; the socket in it too. */
static int try_dir(const char *dir, uint32_t pid, uint32_t uid, char *path, size_t len)
{
    struct stat st;
    char parent[256];
    snprintf(parent, sizeof(parent), "%s", dir);
    char *slash = strrchr(parent, '/');
    if (slash && slash != parent)
        *slash = '\0';
    if (!private_dir(dir, uid) || (slash && slash != parent && !getenv("GPUSCOPE_PYHOOK_DIR") && !private_dir(parent, uid)))
        return -1;
    if ((size_t)snprintf(path, len, "%s/%u.sock", dir, pid) >= len)
        return -1;
    return lstat(path, &st) == 0 && S_ISSOCK(st.st_mode) && st.st_uid == uid ? 0 : -1;
}

int gs_pyhook_path(uint32_t pid, uint32_t uid, char *path, size_t len)
{
    char dir[256];
    const char *over = getenv("GPUSCOPE_PYHOOK_DIR");
    if (len > sizeof(((struct sockaddr_un *)0)->sun_path))
        len = sizeof(((struct sockaddr_un *)0)->sun_path);
    if (over && *over)
        return try_dir(over, pid, uid, path, len);
    snprintf(dir, sizeof(dir), "/run/user/%u/gpuscope/pyhook", uid);
    if (try_dir(dir, pid, uid, path, len) == 0)
        return 0;
    snprintf(dir, sizeof(dir), "/tmp/gpuscope-%u/pyhook", uid);
    return try_dir(dir, pid, uid, path, len);
}

int gs_pyhook_python_dir(char *out, size_t len)
{
    char probe[4096];
    if (gs_path_shipped("../python/hook/sitecustomize.py", "share/gpuscope/python-hook/sitecustomize.py", probe,
                        sizeof(probe)) < 0) {
        if (len)
            out[0] = '\0';
        return -1;
    }
    char *slash = strrchr(probe, '/');
    *slash = '\0';
    char *real = realpath(probe, NULL);
    snprintf(out, len, "%s", real ? real : probe);
    free(real);
    return 0;
}

/* ---- the sockets of one snapshot ----------------------------------------------------------
 * The sampler looks hundreds of processes up at once: each user's directories are checked
 * and listed once per snapshot (one open, fstat and getdents), so that a process without a
 * socket there costs no system call; a listed one is then checked as gs_pyhook_path() does.
 * The checks are those of try_dir(), made on the open directory itself (O_NOFOLLOW, fstat):
 * what is listed is the directory that was checked. */
#define PYH_LIST_DIRS 2         /* /run/user/UID/gpuscope/pyhook, /tmp/gpuscope-UID/pyhook */

struct pyh_list {
    uint32_t uid;
    unsigned ndirs;
    struct {
        char path[256];
        uint32_t *pids;         /* sorted: the PIDs with an entry PID.sock, maybe a socket */
        unsigned n;
    } d[PYH_LIST_DIRS];
};

static int pid_cmp(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* "1234.sock" -> 1234; -1 for any other name. */
static int64_t sock_name_pid(const char *name)
{
    uint64_t v = 0;
    const char *c = name;
    for (; *c >= '0' && *c <= '9' && c - name < 10; c++)
        v = v * 10 + (uint64_t)(*c - '0');
    return c == name || v > UINT32_MAX || strcmp(c, ".sock") ? -1 : (int64_t)v;
}

/* List dir into *pids when it (and its parent, but under GPUSCOPE_PYHOOK_DIR) belongs to uid
 * alone; 0 (maybe no PIDs) or -1. */
static int list_dir(const char *dir, uint32_t uid, bool check_parent, uint32_t **pids, unsigned *n)
{
    char parent[256];
    struct stat st;
    size_t cap = 0;
    size_t len = strnlen(dir, sizeof(parent));
    *pids = NULL;
    *n = 0;
    if (len >= sizeof(parent))
        return -1;
    memcpy(parent, dir, len + 1);
    char *slash = strrchr(parent, '/');
    if (slash && slash != parent)
        *slash = '\0';
    if (check_parent && slash && slash != parent && !private_dir(parent, uid))
        return -1;
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return -1;
    DIR *d = fstat(fd, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == uid && !(st.st_mode & 022)
                 ? fdopendir(fd) : NULL;
    if (!d) {
        close(fd);
        return -1;
    }
    for (struct dirent *de; (de = readdir(d));) {
        int64_t pid = de->d_type == DT_SOCK || de->d_type == DT_UNKNOWN ? sock_name_pid(de->d_name) : -1;
        if (pid < 0)
            continue;
        if (*n == cap) {
            uint32_t *np = *n < PYH_MAX_ENTRIES * 4 ? gs_vec_grow(*pids, &cap, *n + 1, sizeof(*np)) : NULL;
            if (!np)
                break; /* what is listed so far stays usable */
            *pids = np;
        }
        (*pids)[(*n)++] = (uint32_t)pid;
    }
    closedir(d);
    if (*n > 1)
        qsort(*pids, *n, sizeof(**pids), pid_cmp);
    return 0;
}

static void list_build(struct pyh_list *l, uint32_t uid)
{
    const char *over = getenv("GPUSCOPE_PYHOOK_DIR");
    bool custom = over && *over;
    memset(l, 0, sizeof(*l));
    l->uid = uid;
    for (unsigned i = 0; i < (custom ? 1u : 2u); i++) {
        char *path = l->d[l->ndirs].path;
        size_t cap = sizeof(l->d[0].path);
        if ((size_t)(custom ? snprintf(path, cap, "%s", over)
                     : snprintf(path, cap, i ? "/tmp/gpuscope-%u/pyhook" : "/run/user/%u/gpuscope/pyhook", uid)) >= cap)
            continue;
        if (list_dir(path, uid, !custom, &l->d[l->ndirs].pids, &l->d[l->ndirs].n) == 0)
            l->ndirs++;
    }
}

/* As gs_pyhook_path(), from the listings: the first directory that lists pid and holds a
 * socket of uid under its name. */
static int list_path(const struct pyh_list *l, uint32_t pid, char *path, size_t len)
{
    struct stat st;
    if (len > sizeof(((struct sockaddr_un *)0)->sun_path))
        len = sizeof(((struct sockaddr_un *)0)->sun_path);
    for (unsigned i = 0; i < l->ndirs; i++) {
        if (!l->d[i].n || !bsearch(&pid, l->d[i].pids, l->d[i].n, sizeof(pid), pid_cmp))
            continue;
        if ((size_t)snprintf(path, len, "%s/%u.sock", l->d[i].path, pid) >= len)
            continue;
        if (lstat(path, &st) == 0 && S_ISSOCK(st.st_mode) && st.st_uid == l->uid)
            return 0;
    }
    return -1;
}

static void list_free(struct pyh_list *l)
{
    for (unsigned i = 0; i < l->ndirs; i++)
        free(l->d[i].pids);
    l->ndirs = 0;
}

/* ---- one exchange ---------------------------------------------------------------------- */
/* Connect without blocking and check that the peer is pid (SO_PEERCRED). fd or -errno. */
static int connect_to(const char *path, uint32_t pid)
{
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0)
        return -errno;
    if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 && errno != EINPROGRESS) {
        int e = errno;
        close(fd);
        return -e; /* ECONNREFUSED: a dead process's socket; EAGAIN: its backlog is full */
    }
    struct ucred cred;
    socklen_t cl = sizeof(cred);
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &cl) < 0 || (uint32_t)cred.pid != pid) {
        close(fd);
        return -EPERM; /* somebody else's socket under that name */
    }
    return fd;
}

static int send_op(int fd, const char *op)
{
    char line[32];
    int n = snprintf(line, sizeof(line), "%s\n", op);
    return send(fd, line, (size_t)n, MSG_NOSIGNAL | MSG_DONTWAIT) == n ? 0 : -1;
}

/* Append what is there to read. 1: a whole line has arrived; 0: not yet; -1: closed
 * before the end of the line, too long, or an error. */
static int read_some(int fd, char **buf, size_t *used, size_t *cap, size_t max)
{
    for (;;) {
        if (*used + 4097 > *cap) {
            size_t ncap = *cap ? *cap * 2 : 8192;
            if (ncap > max + 4097)
                ncap = max + 4097;
            if (ncap <= *used + 1)
                return -1;
            char *n = realloc(*buf, ncap);
            if (!n)
                return -1;
            *buf = n;
            *cap = ncap;
        }
        ssize_t r = recv(fd, *buf + *used, *cap - *used - 1, MSG_DONTWAIT);
        if (r < 0)
            return errno == EAGAIN || errno == EINTR ? 0 : -1;
        if (r == 0)
            return -1;
        char *nl = memchr(*buf + *used, '\n', (size_t)r);
        *used += (size_t)r;
        (*buf)[*used] = '\0';
        if (nl)
            return 1;
        if (*used > max)
            return -1;
    }
}

int gs_pyhook_request(uint32_t pid, uint32_t uid, const char *op, int timeout_ms, char **reply, size_t *len,
                      struct gs_err *err)
{
    char path[108];
    size_t cap = 0, used = 0;
    *reply = NULL;
    *len = 0;
    if (gs_pyhook_path(pid, uid, path, sizeof(path)) < 0) {
        gs_err_set(err, GS_E_IO, "process %u has no gpuscope Python hook (no socket of user %u for it)", pid, uid);
        gs_err_hint(err, "Start it with `gpuscope run --python -- python ...`, or put `eval \"$(gpuscope pyhook "
                         "env)\"` before the command that starts it; gpuscope must run as that user or root.");
        return -GS_E_IO;
    }
    int fd = connect_to(path, pid);
    if (fd < 0) {
        gs_err_set(err, GS_E_IO, "cannot reach the Python hook of process %u at %s: %s", pid, path, strerror(-fd));
        gs_err_hint(err, "%s", fd == -ECONNREFUSED ? "The process has ended, or its hook stopped."
                                                  : "Run gpuscope as the process's user or as root.");
        return -GS_E_IO;
    }
    int64_t deadline = gs_clock_mono_ms() + timeout_ms, rc = 0;
    struct pollfd pf = { .fd = fd, .events = POLLOUT };
    if (poll(&pf, 1, timeout_ms) <= 0 || send_op(fd, op) < 0) {
        close(fd);
        return gs_err_set(err, GS_E_IO, "the Python hook of process %u does not take requests", pid);
    }
    char *buf = NULL;
    size_t max = strcmp(op, "stacks") ? GS_PYHOOK_STATS_MAX : GS_PYHOOK_STACKS_MAX;
    pf.events = POLLIN;
    while ((rc = read_some(fd, &buf, &used, &cap, max)) == 0) {
        int left = (int)(deadline - gs_clock_mono_ms());
        if (left <= 0 || poll(&pf, 1, left) < 0)
            break;
    }
    close(fd);
    if (rc != 1) {
        free(buf);
        return gs_err_set(err, GS_E_IO, "the Python hook of process %u %s", pid,
                          rc == 0 ? "did not answer in time (is the interpreter stuck holding the GIL?)"
                                  : "closed the connection without a whole answer");
    }
    *reply = buf;
    *len = used;
    return 0;
}

/* ---- the sampler's cache ----------------------------------------------------------------- */
struct pyh_entry {
    uint32_t pid, uid;
    int64_t start;              /* gs_proc.start_time: a new process with the same PID is another entry */
    int64_t seen_ms;            /* last snapshot that listed it */
    bool has_socket;
    int64_t checked_ms;         /* when the socket was last looked for */
    int64_t recheck_ms;         /* how long until the next look: doubles up to PYH_RECHECK_MS */
    int fd;                     /* a request in flight, or -1 */
    int64_t asked_ms;
    char *buf;
    size_t used, cap;
    bool have;                  /* *stats holds a good answer */
    bool failed;                /* the latest request failed */
    int64_t got_ms;
    struct gs_pyhook_stats *stats; /* from the first good answer on: most processes have no hook,
                                    * and top lists hundreds (~5 KB each) */
};

struct gs_pyhook {
    enum gs_pyhook_mode mode;
    struct pyh_entry *e;
    unsigned n;
    size_t cap;
    unsigned next;              /* the entry after the one entry_for found last */
    struct pyh_list *lists;     /* this snapshot's listings, one per user met (few) */
    unsigned nlists;
    size_t lists_cap;
};

int gs_pyhook_open(struct gs_pyhook **out, enum gs_pyhook_mode mode)
{
    *out = NULL;
    if (mode == GS_PYHOOK_OFF)
        return 0;
    struct gs_pyhook *h = calloc(1, sizeof(*h));
    if (!h)
        return -GS_E_NOMEM;
    h->mode = mode;
    *out = h;
    return 0;
}

static void entry_drop(struct pyh_entry *e)
{
    if (e->fd >= 0)
        close(e->fd);
    free(e->buf);
    free(e->stats);
}

/* The socket of pid for uid, from this snapshot's listing of uid's directories (made at the
 * first need); without memory for a listing, gs_pyhook_path() itself. */
static int snapshot_path(struct gs_pyhook *h, uint32_t pid, uint32_t uid, char *path, size_t len)
{
    for (unsigned i = 0; i < h->nlists; i++)
        if (h->lists[i].uid == uid)
            return list_path(&h->lists[i], pid, path, len);
    if (h->nlists == h->lists_cap) {
        struct pyh_list *n = gs_vec_grow(h->lists, &h->lists_cap, h->nlists + 1, sizeof(*n));
        if (!n)
            return gs_pyhook_path(pid, uid, path, len);
        h->lists = n;
    }
    list_build(&h->lists[h->nlists], uid);
    return list_path(&h->lists[h->nlists++], pid, path, len);
}

static void snapshot_lists_free(struct gs_pyhook *h)
{
    for (unsigned i = 0; i < h->nlists; i++)
        list_free(&h->lists[i]);
    h->nlists = 0;
}

void gs_pyhook_close(struct gs_pyhook *h)
{
    if (!h)
        return;
    for (unsigned i = 0; i < h->n; i++)
        entry_drop(&h->e[i]);
    snapshot_lists_free(h);
    free(h->lists);
    free(h->e);
    free(h);
}

/* The entries are sorted by PID, then start time: a binary search (top asks ~1000 times a
 * tick). The index of (pid, start), or where it goes. */
static unsigned entry_pos(const struct gs_pyhook *h, uint32_t pid, int64_t start)
{
    unsigned lo = 0, hi = h->n;
    while (lo < hi) {
        unsigned mid = lo + (hi - lo) / 2;
        const struct pyh_entry *m = &h->e[mid];
        if (m->pid < pid || (m->pid == pid && m->start < start))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static struct pyh_entry *entry_for(struct gs_pyhook *h, const struct gs_proc *p, int64_t now)
{
    int64_t start = gs_proc_has(p, GS_P_START) ? p->start_time : 0;
    /* a snapshot's processes come in the order of the last one's, mostly by PID: try the next first */
    unsigned at = h->next < h->n && h->e[h->next].pid == p->pid && h->e[h->next].start == start
                      ? h->next : entry_pos(h, p->pid, start);
    h->next = at + 1;
    if (at < h->n && h->e[at].pid == p->pid && h->e[at].start == start)
        return &h->e[at];
    if (!gs_proc_has(p, GS_P_USER) || h->n >= PYH_MAX_ENTRIES)
        return NULL; /* whose socket to look for is not known */
    if (h->n == h->cap) {
        struct pyh_entry *n = gs_vec_grow(h->e, &h->cap, h->n + 1, sizeof(*n));
        if (!n)
            return NULL;
        h->e = n;
    }
    memmove(&h->e[at + 1], &h->e[at], (h->n - at) * sizeof(*h->e));
    h->n++;
    struct pyh_entry *e = &h->e[at];
    memset(e, 0, sizeof(*e));
    e->pid = p->pid;
    e->uid = p->uid;
    e->start = start;
    e->fd = -1;
    e->recheck_ms = PYH_RECHECK_FIRST_MS;
    e->checked_ms = now - e->recheck_ms;
    return e;
}

/* Send a request when one is due. */
static void entry_ask(struct gs_pyhook *h, struct pyh_entry *e, int64_t now)
{
    char path[108];
    if (e->fd >= 0 || (e->asked_ms && now - e->asked_ms < PYH_REFRESH_MS))
        return;
    if (!e->has_socket && now - e->checked_ms < e->recheck_ms)
        return;
    e->checked_ms = now;
    e->has_socket = snapshot_path(h, e->pid, e->uid, path, sizeof(path)) == 0;
    if (!e->has_socket) {
        e->recheck_ms = e->recheck_ms * 2 < PYH_RECHECK_MS ? e->recheck_ms * 2 : PYH_RECHECK_MS;
        return;
    }
    int fd = connect_to(path, e->pid);
    e->asked_ms = now;
    if (fd >= 0 && send_op(fd, "stats") == 0) {
        e->fd = fd;
        e->used = 0;
        return;
    }
    if (fd >= 0)
        close(fd);
    e->failed = fd != -EAGAIN;
    if (fd == -ECONNREFUSED)
        e->has_socket = false; /* a dead process's socket: look again later */
}

/* Read what has arrived; a whole answer replaces the cached one. */
static void entry_read(struct pyh_entry *e, int64_t now)
{
    if (e->fd < 0)
        return;
    int rc = read_some(e->fd, &e->buf, &e->used, &e->cap, GS_PYHOOK_STATS_MAX);
    if (rc == 0 && now - e->asked_ms < PYH_TIMEOUT_MS)
        return;
    close(e->fd);
    e->fd = -1;
    struct gs_pyhook_stats st;
    if (rc == 1 && gs_pyhook_parse_stats(e->buf, e->used, &st, NULL, 0) == 0 && st.pid == e->pid &&
        (e->stats || (e->stats = malloc(sizeof(*e->stats))))) {
        *e->stats = st;
        e->have = true;
        e->failed = false;
        e->got_ms = now;
    } else {
        e->failed = true;
    }
    if (e->cap > 65536) { /* do not keep a big buffer per process */
        free(e->buf);
        e->buf = NULL;
        e->cap = 0;
    }
}

static void wait_inline(struct gs_pyhook *h)
{
    struct pollfd pf[64];
    int64_t deadline = gs_clock_mono_ms() + PYH_INLINE_MS;
    for (;;) {
        unsigned n = 0;
        int64_t now = gs_clock_mono_ms();
        for (unsigned i = 0; i < h->n; i++) {
            entry_read(&h->e[i], now);
            if (h->e[i].fd >= 0 && n < 64)
                pf[n++] = (struct pollfd){ .fd = h->e[i].fd, .events = POLLIN };
        }
        if (!n || now >= deadline)
            return;
        poll(pf, n, (int)(deadline - now));
    }
}

void gs_pyhook_snapshot(struct gs_pyhook *h, struct gs_snapshot *snap)
{
    if (!h)
        return;
    int64_t now = gs_clock_mono_ms();
    for (uint32_t i = 0; i < snap->ngpus; i++)
        for (uint32_t k = 0; k < snap->gpus[i].nprocs; k++) {
            struct pyh_entry *e = entry_for(h, &snap->gpus[i].procs[k], now);
            if (e) {
                e->seen_ms = now;
                entry_ask(h, e, now);
            }
        }
    snapshot_lists_free(h); /* a socket made after this snapshot is found in the next */
    if (h->mode == GS_PYHOOK_INLINE)
        wait_inline(h);
    now = gs_clock_mono_ms();
    bool any = false; /* an answer or a failure to hand on (most processes have no hook) */
    for (unsigned i = 0; i < h->n; i++) {
        entry_read(&h->e[i], now);
        any = any || h->e[i].have || (h->e[i].has_socket && h->e[i].failed);
    }
    for (uint32_t i = 0; any && i < snap->ngpus; i++)
        for (uint32_t k = 0; k < snap->gpus[i].nprocs; k++) {
            struct gs_proc *p = &snap->gpus[i].procs[k];
            struct pyh_entry *e = entry_for(h, p, now);
            if (e && e->have)
                gs_pyhook_apply(e->stats, &snap->gpus[i].st, (uint32_t)(now - e->got_ms), p);
            else if (e && e->has_socket && e->failed)
                p->pyhook_state = GS_PYHOOK_ST_ERROR;
        }
    unsigned kept = 0;
    for (unsigned i = 0; i < h->n; i++) /* forget processes gone for a while (the order stays) */
        if (now - h->e[i].seen_ms > PYH_FORGET_MS)
            entry_drop(&h->e[i]);
        else
            h->e[kept++] = h->e[i];
    h->n = kept;
}
