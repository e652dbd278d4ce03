/* SPDX-License-Identifier: MIT */
/*
 * kmsg.c - Xid lines from the kernel log. The parser matches on the substring
 * "NVRM: Xid (" (never on line start: dmesg, dmesg -T, journald and /dev/kmsg
 * records all prefix it differently), takes the location up to ')' (optional
 * "PCI:", domain:bus:device in hex, an optional ".function", optional
 * " GPU-I:NN" / " GPU-CI:NN" MIG tags), then the decimal code, then optional
 * "pid=N|'<unknown>'" and "name=..." fields, then the message. Old drivers'
 * "Ch 0000001f, ..." payloads have no pid/name and are kept as the message.
 * "GPU has fallen off the bus" lines without an Xid count as Xid 79, also in
 * the three-line form whose address is on the first line ("NVRM: The NVIDIA
 * GPU 0000:b3:00.0" / "NVRM: (PCI ID: ...) installed in this system has" /
 * "NVRM: fallen off the bus ..."); "RmInitAdapter failed" lines (the driver
 * could not initialise a GPU) are kept as Xid 0 with their PCI address.
 */
#include "health/kmsg.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/vec.h"

#define KMSG_READ_MAX ((size_t)1 << 31) /* a log file or dmesg output read whole: up to 2 GiB */

extern char **environ;

static const char *find_sub(const char *s, size_t len, const char *needle)
{
    return memmem(s, len, needle, strlen(needle));
}

/* strtod and strtoll read until a byte that ends the number, and a line's end is not one
 * (lines are not NUL-terminated): they parse a bounded copy. *stop: the byte after the number. */
static void span_copy(char *buf, size_t cap, const char *p, const char *end)
{
    size_t n = (size_t)(end - p) < cap - 1 ? (size_t)(end - p) : cap - 1;
    memcpy(buf, p, n);
    buf[n] = '\0';
}

static double span_strtod(const char *p, const char *end, const char **stop)
{
    char buf[48];
    span_copy(buf, sizeof(buf), p, end);
    char *e;
    double v = strtod(buf, &e);
    if (stop)
        *stop = p + (e - buf);
    return v;
}

static long long span_strtoll(const char *p, const char *end)
{
    char buf[32];
    span_copy(buf, sizeof(buf), p, end);
    return strtoll(buf, NULL, 10);
}

/* "[ 12345.678901]" anywhere before the NVRM tag, or a /dev/kmsg record
 * "prio,seq,usec,flags;" at the start: seconds since boot, or -1. */
static double line_time(const char *s, size_t len)
{
    const char *semi = memchr(s, ';', len);
    if (semi && isdigit((unsigned char)s[0])) {
        int commas = 0;
        const char *p = s, *usec = NULL;
        for (; p < semi; p++)
            if (*p == ',' && ++commas == 2)
                usec = p + 1;
        if (usec && commas >= 3)
            return span_strtod(usec, semi, NULL) / 1e6;
    }
    if (len > 2 && s[0] == '[') {
        const char *p = s + 1;
        while (p < s + len && *p == ' ')
            p++;
        if (p < s + len && isdigit((unsigned char)*p)) {
            const char *end;
            double v = span_strtod(p, s + len, &end);
            if (end < s + len && *end == ']')
                return v;
        }
    }
    return -1;
}

/* One to eight hex digits at p, never reading at or past end (a line is not NUL-terminated,
 * so strtoul cannot be used here); returns the byte after them or NULL. */
static const char *hex_field(const char *p, const char *end, unsigned long *v)
{
    const char *s = p;
    unsigned long x = 0;
    while (p < end && isxdigit((unsigned char)*p)) {
        if (p - s == 8)
            return NULL;
        x = x * 16 + (unsigned long)(isdigit((unsigned char)*p) ? *p - '0' : (*p | 0x20) - 'a' + 10);
        p++;
    }
    if (p == s)
        return NULL;
    *v = x;
    return p;
}

/* Parse "[PCI:]DDDD:BB:DD[.F]" at p (within end); returns the byte after it or NULL. */
static const char *parse_bdf(const char *p, const char *end, struct gs_xid *x)
{
    unsigned long v[3];
    int i = 0;

    if (end - p >= 4 && !strncmp(p, "PCI:", 4))
        p += 4;
    for (; i < 3 && p < end; i++) {
        p = hex_field(p, end, &v[i]);
        if (!p)
            return NULL;
        if (i < 2) {
            if (p >= end || *p != ':')
                return NULL;
            p++;
        }
    }
    if (i < 3)
        return NULL;
    if (p < end && *p == '.' && p + 1 < end && isxdigit((unsigned char)p[1]))
        p += 2;
    x->pci_domain = (uint32_t)v[0];
    x->pci_bus = (uint32_t)v[1];
    x->pci_device = (uint32_t)v[2];
    x->has_pci = true;
    return p;
}

/* Inside the parentheses: the location and MIG tags. */
static void parse_location(const char *p, const char *end, struct gs_xid *x)
{
    const char *q = parse_bdf(p, end, x);
    if (!q)
        return;
    while (q < end) {
        while (q < end && *q == ' ')
            q++;
        if (end - q > 7 && !strncmp(q, "GPU-CI:", 7))
            x->ci = (int32_t)span_strtoll(q + 7, end);
        else if (end - q > 6 && !strncmp(q, "GPU-I:", 6))
            x->gi = (int32_t)span_strtoll(q + 6, end);
        while (q < end && *q != ' ')
            q++;
    }
}

static void copy_span(char *dst, size_t cap, const char *p, const char *end)
{
    size_t n = (size_t)(end - p);
    while (n > 0 && (p[n - 1] == '\n' || p[n - 1] == '\r' || p[n - 1] == ' '))
        n--;
    if (n >= cap)
        n = cap - 1;
    memcpy(dst, p, n);
    dst[n] = '\0';
}

/* After the code's comma: "pid=..., name=..., message" or an old payload. */
static void parse_tail(const char *p, const char *end, struct gs_xid *x)
{
    while (p < end && *p == ' ')
        p++;
    if (end - p > 4 && !strncmp(p, "pid=", 4)) {
        p += 4;
        if (p < end && isdigit((unsigned char)*p))
            x->pid = (uint32_t)span_strtoll(p, end);
        const char *c = memchr(p, ',', (size_t)(end - p));
        p = c ? c + 1 : end;
        while (p < end && *p == ' ')
            p++;
        if (end - p > 5 && !strncmp(p, "name=", 5)) {
            p += 5;
            const char *n = find_sub(p, (size_t)(end - p), ", ");
            const char *nend = n ? n : end;
            copy_span(x->name, sizeof(x->name), p, nend);
            if (!strcmp(x->name, "<unknown>"))
                x->name[0] = '\0';
            p = n ? n + 2 : end;
        }
    }
    copy_span(x->msg, sizeof(x->msg), p, end);
}

static void xid_init(struct gs_xid *x, double ts)
{
    memset(x, 0, sizeof(*x));
    x->gpu = GS_NO_GPU;
    x->gi = x->ci = -1;
    x->ts_s = ts;
}

/* "NVRM: GPU 0000:18:00.0: GPU has fallen off the bus." and its variants. */
static int parse_fallen(const char *s, size_t len, const char *nvrm, struct gs_xid *x)
{
    const char *end = s + len;
    if (!find_sub(nvrm, (size_t)(end - nvrm), "fallen off the bus"))
        return 0;
    xid_init(x, line_time(s, len));
    x->xid = 79;
    for (const char *p = nvrm + 5; p < end; p++) {
        if (isxdigit((unsigned char)*p) && (p == nvrm || p[-1] == ' ') && parse_bdf(p, end, x))
            break;
    }
    x->continued = !x->has_pci; /* the middle/last line of the three-line form: the address came before */
    snprintf(x->msg, sizeof(x->msg), "GPU has fallen off the bus.");
    return 2;
}

/* "NVRM: GPU 0000:0a:00.0: RmInitAdapter failed! (0x24:0x72:1568)" and the
 * older "NVRM: RmInitAdapter failed! (...)" without an address. */
static int parse_init_failed(const char *s, size_t len, const char *nvrm, struct gs_xid *x)
{
    const char *end = s + len, *m = find_sub(nvrm, (size_t)(end - nvrm), "RmInitAdapter failed");
    if (!m)
        return 0;
    xid_init(x, line_time(s, len));
    x->xid = GS_XID_INIT_FAILED;
    for (const char *p = nvrm + 5; p < m; p++)
        if (isxdigit((unsigned char)*p) && p[-1] == ' ' && parse_bdf(p, m, x))
            break;
    copy_span(x->msg, sizeof(x->msg), m, end);
    return 3;
}

int gs_kmsg_parse_line(const char *s, size_t len, struct gs_xid *x)
{
    const char *end = s + len;
    const char *nvrm = find_sub(s, len, "NVRM: ");
    if (!nvrm)
        return 0;
    const char *tag = find_sub(nvrm, (size_t)(end - nvrm), "NVRM: Xid (");
    if (!tag) {
        int k = parse_fallen(s, len, nvrm, x);
        return k ? k : parse_init_failed(s, len, nvrm, x);
    }
    const char *loc = tag + 11;
    const char *close = memchr(loc, ')', (size_t)(end - loc));
    if (!close || close + 2 >= end || close[1] != ':')
        return 0;
    const char *p = close + 2;
    while (p < end && *p == ' ')
        p++;
    if (p >= end || !isdigit((unsigned char)*p))
        return 0;
    unsigned long code = 0;
    int digits = 0;
    for (; p < end && isdigit((unsigned char)*p) && digits < 6; p++, digits++)
        code = code * 10 + (unsigned long)(*p - '0');
    if (p < end && *p != ',' && *p != '\n' && *p != '\r' && *p != ' ')
        return 0;
    xid_init(x, line_time(s, len));
    x->xid = (uint32_t)code;
    parse_location(loc, close, x);
    if (p < end && *p == ',')
        parse_tail(p + 1, end, x);
    return 1;
}

static void log_push(struct gs_kmsg_log *log, const struct gs_xid *x, int kind)
{
    if (kind == 2) {
        /* a companion line: skip if this GPU's Xid 79 is already listed */
        for (size_t i = log->n; i-- > 0;) {
            const struct gs_xid *o = &log->v[i];
            if (o->xid == 79 && o->has_pci == x->has_pci && o->pci_domain == x->pci_domain &&
                o->pci_bus == x->pci_bus && o->pci_device == x->pci_device)
                return;
        }
    }
    if (log->n == log->cap) {
        if (log->cap >= GS_KMSG_MAX) {
            log->dropped++;
            return;
        }
        struct gs_xid *v = gs_vec_grow(log->v, &log->cap, log->n + 1, sizeof(*v));
        if (!v) {
            log->dropped++; /* out of memory: counted as beyond the bound */
            return;
        }
        log->v = v;
    }
    log->v[log->n++] = *x;
}

/* "NVRM: The NVIDIA GPU 0000:b3:00.0" starting the three-line form: remember the address. */
static void note_gpu_line(struct gs_kmsg_log *log, const char *s, size_t len)
{
    const char *end = s + len, *m = find_sub(s, len, "NVRM: The NVIDIA GPU ");
    struct gs_xid x;
    if (!m)
        return;
    memset(&x, 0, sizeof(x));
    if (parse_bdf(m + 21, end, &x)) {
        log->carry_domain = x.pci_domain;
        log->carry_bus = x.pci_bus;
        log->carry_device = x.pci_device;
        log->carry_lines = 3;
    }
}

void gs_kmsg_parse_buf(struct gs_kmsg_log *log, const char *buf, size_t len)
{
    const char *p = buf, *end = buf + len;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *le = nl ? nl : end;
        struct gs_xid x;
        log->lines++;
        /* cheap pre-filter: most kernel lines are not the driver's */
        if (le - p > 6 && memmem(p, (size_t)(le - p), "NVRM", 4)) {
            int kind = gs_kmsg_parse_line(p, (size_t)(le - p), &x);
            if (kind == 2 && x.continued && log->carry_lines > 0) {
                x.has_pci = true;
                x.pci_domain = log->carry_domain;
                x.pci_bus = log->carry_bus;
                x.pci_device = log->carry_device;
            }
            if (kind)
                log_push(log, &x, kind);
            if (log->carry_lines > 0)
                log->carry_lines--;
            if (!kind)
                note_gpu_line(log, p, (size_t)(le - p));
        }
        p = nl ? nl + 1 : end;
    }
}

/* /dev/kmsg: one record per read(); EAGAIN = the end; EPIPE = overwritten, go on. */
static int read_devkmsg(struct gs_kmsg_log *log, struct gs_err *err)
{
    char rec[8192];
    int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return gs_err_set(err, errno == EACCES || errno == EPERM ? GS_E_PERMISSION : GS_E_IO,
                          "/dev/kmsg: %s", strerror(errno));
    for (;;) {
        ssize_t n = read(fd, rec, sizeof(rec) - 1);
        if (n < 0 && errno == EPIPE)
            continue;
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        /* keep the record's first line only: continuation lines are KEY=value */
        const char *nl = memchr(rec, '\n', (size_t)n);
        gs_kmsg_parse_buf(log, rec, nl ? (size_t)(nl - rec) : (size_t)n);
    }
    close(fd);
    snprintf(log->source, sizeof(log->source), "/dev/kmsg");
    return 0;
}

/* The whole of fd (its first 2 GiB), then parsed; -GS_E_NOMEM, nothing parsed,
 * when it does not fit in memory: a cut log would hide its newest Xids. */
static int read_fd_all(int fd, struct gs_kmsg_log *log)
{
    struct gs_vec b;
    gs_vec_init(&b, 1);
    while (b.len < KMSG_READ_MAX) {
        if (!gs_vec_reserve(&b, b.len + (1 << 16))) {
            gs_vec_free(&b);
            return -GS_E_NOMEM;
        }
        size_t room = b.cap - b.len;
        ssize_t n = read(fd, (char *)b.data + b.len, room < KMSG_READ_MAX - b.len ? room : KMSG_READ_MAX - b.len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        b.len += (size_t)n;
    }
    gs_kmsg_parse_buf(log, b.data, b.len);
    gs_vec_free(&b);
    return 0;
}

/* `dmesg` without a shell: its stdout through a pipe. */
static int read_dmesg(struct gs_kmsg_log *log, struct gs_err *err)
{
    int pfd[2];
    pid_t pid;
    posix_spawn_file_actions_t fa;
    char *argv[] = { (char *)"dmesg", NULL };
    int status = 0;

    if (pipe2(pfd, O_CLOEXEC) < 0)
        return gs_err_set(err, GS_E_IO, "pipe: %s", strerror(errno));
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, pfd[1], 1);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    int rc = posix_spawnp(&pid, "dmesg", &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(pfd[1]);
    if (rc != 0) {
        close(pfd[0]);
        return gs_err_set(err, GS_E_IO, "dmesg: %s", strerror(rc));
    }
    int read_rc = read_fd_all(pfd[0], log);
    close(pfd[0]);
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    snprintf(log->source, sizeof(log->source), "dmesg");
    if (read_rc < 0)
        return gs_err_set(err, GS_E_NOMEM, "dmesg: out of memory for its output");
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return gs_err_set(err, GS_E_PERMISSION,
                          "dmesg failed (kernel.dmesg_restrict=1 needs CAP_SYSLOG or root)");
    return 0;
}

int gs_kmsg_read(const char *path, struct gs_kmsg_log *log, struct gs_err *err)
{
    if (path) {
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            return gs_err_set(err, errno == EACCES ? GS_E_PERMISSION : GS_E_IO, "%s: %s", path,
                              strerror(errno));
        snprintf(log->source, sizeof(log->source), "%s", path);
        int rc = read_fd_all(fd, log);
        close(fd);
        return rc < 0 ? gs_err_set(err, GS_E_NOMEM, "%s: out of memory", path) : 0;
    }
    struct gs_err e1 = { 0 };
    if (read_devkmsg(log, &e1) == 0)
        return 0;
    int rc = read_dmesg(log, err);
    if (rc < 0)
        gs_err_hint(err, "%s; run as root or grant CAP_SYSLOG to read Xids from the kernel log",
                    e1.msg);
    return rc;
}

void gs_kmsg_free(struct gs_kmsg_log *log)
{
    free(log->v);
    memset(log, 0, sizeof(*log));
}

/* ---- following the log (watch) --------------------------------------------------------- */

int gs_kmsg_tail_open(struct gs_kmsg_tail *t, const char *path, struct gs_err *err)
{
    memset(t, 0, sizeof(*t));
    t->devkmsg = !path;
    snprintf(t->source, sizeof(t->source), "%s", path ? path : "/dev/kmsg");
    t->fd = open(t->source, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (t->fd < 0)
        return gs_err_set(err, errno == EACCES || errno == EPERM ? GS_E_PERMISSION : GS_E_IO, "%s: %s",
                          t->source, strerror(errno));
    off_t end = lseek(t->fd, 0, SEEK_END); /* /dev/kmsg: the next record to be written */
    t->off = !t->devkmsg && end > 0 ? (long long)end : 0;
    return 0;
}

static void tail_devkmsg(struct gs_kmsg_tail *t, struct gs_kmsg_log *log)
{
    char rec[8192];
    for (;;) {
        ssize_t n = read(t->fd, rec, sizeof(rec) - 1);
        if (n < 0 && (errno == EPIPE || errno == EINTR))
            continue; /* EPIPE: records overwritten before we read them */
        if (n <= 0)
            return;   /* EAGAIN: nothing more for now */
        const char *nl = memchr(rec, '\n', (size_t)n);
        gs_kmsg_parse_buf(log, rec, nl ? (size_t)(nl - rec) : (size_t)n);
    }
}

static int tail_file(struct gs_kmsg_tail *t, struct gs_kmsg_log *log, struct gs_err *err)
{
    char buf[65536];
    struct stat sb;
    if (fstat(t->fd, &sb) == 0 && (long long)sb.st_size < t->off) { /* truncated or rotated in place */
        t->off = 0;
        t->plen = 0;
    }
    for (;;) {
        ssize_t n = pread(t->fd, buf, sizeof(buf), (off_t)t->off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return gs_err_set(err, GS_E_IO, "%s: %s", t->source, strerror(errno));
        if (n == 0)
            return 0;
        t->off += n;
        const char *p = buf, *end = buf + n;
        const char *last_nl = NULL;
        for (const char *q = end; q > p; q--)
            if (q[-1] == '\n') {
                last_nl = q - 1;
                break;
            }
        if (!last_nl) { /* no complete line yet: keep it (a line longer than part is cut) */
            size_t k = (size_t)n < sizeof(t->part) - t->plen ? (size_t)n : sizeof(t->part) - t->plen;
            memcpy(t->part + t->plen, p, k);
            t->plen += k;
            continue;
        }
        if (t->plen) { /* finish the line started in an earlier read */
            const char *nl = memchr(p, '\n', (size_t)(end - p));
            size_t k = (size_t)(nl - p) < sizeof(t->part) - t->plen ? (size_t)(nl - p) : sizeof(t->part) - t->plen;
            memcpy(t->part + t->plen, p, k);
            gs_kmsg_parse_buf(log, t->part, t->plen + k);
            t->plen = 0;
            p = nl + 1;
        }
        if (p <= last_nl)
            gs_kmsg_parse_buf(log, p, (size_t)(last_nl - p));
        size_t rest = (size_t)(end - (last_nl + 1));
        memcpy(t->part, last_nl + 1, rest < sizeof(t->part) ? rest : sizeof(t->part));
        t->plen = rest < sizeof(t->part) ? rest : sizeof(t->part);
    }
}

int gs_kmsg_tail_read(struct gs_kmsg_tail *t, struct gs_kmsg_log *log, struct gs_err *err)
{
    if (t->fd < 0)
        return 0;
    snprintf(log->source, sizeof(log->source), "%s", t->source);
    if (t->devkmsg) {
        tail_devkmsg(t, log);
        return 0;
    }
    return tail_file(t, log, err);
}

void gs_kmsg_tail_close(struct gs_kmsg_tail *t)
{
    if (t->fd > 0)
        close(t->fd);
    t->fd = -1;
}
