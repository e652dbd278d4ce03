/* SPDX-License-Identifier: MIT */
/*
 * jobmap.c - reading dcgm-exporter's HPC job mapping directory (jobmap.h):
 * the file parser (fuzzed: fuzz/fuzz_jobmap.c), the file-name rule, and the
 * directory watcher that re-reads only when a stat shows a change.
 */
#include "core/jobmap.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/vec.h"

/* ---- 1. parsing ------------------------------------------------------------------------- */

bool gs_jobmap_valid_id(const char *id)
{
    size_t n = strnlen(id, GS_JOBMAP_ID_MAX + 1);
    if (n == 0 || n > GS_JOBMAP_ID_MAX)
        return false;
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)id[i] <= 0x20 || (unsigned char)id[i] >= 0x7f)
            return false;
    return true;
}

static void jm_reject(struct gs_jobmap_ids *out, unsigned line, const char *why)
{
    if (!out->rejected++) {
        out->bad_line = line;
        out->bad_why = why;
    }
}

/* One line (without its '\n'): trimmed, checked, added unless already there. */
static void jm_line(const char *s, size_t n, unsigned line, struct gs_jobmap_ids *out)
{
    if (n && s[n - 1] == '\r')
        n--;
    while (n && (*s == ' ' || *s == '\t')) {
        s++;
        n--;
    }
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
        n--;
    if (!n)
        return;
    if (n > GS_JOBMAP_ID_MAX)
        return jm_reject(out, line, "job ID longer than 64 bytes");
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)s[i] <= 0x20 || (unsigned char)s[i] >= 0x7f)
            return jm_reject(out, line, "not a job ID (a control, space or non-ASCII byte)");
    for (unsigned k = 0; k < out->n; k++)
        if (strlen(out->id[k]) == n && !memcmp(out->id[k], s, n))
            return; /* listed twice: one series, not two alike */
    if (out->n == GS_JOBMAP_JOBS_MAX)
        return jm_reject(out, line, "more than 64 jobs on one GPU");
    memcpy(out->id[out->n], s, n);
    out->id[out->n++][n] = '\0';
}

void gs_jobmap_parse(const char *buf, size_t len, struct gs_jobmap_ids *out)
{
    const char *end = buf + len;
    unsigned line = 0;

    out->n = out->rejected = out->bad_line = 0;
    out->bad_why = NULL;
    for (const char *s = buf; s < end;) {
        const char *nl = memchr(s, '\n', (size_t)(end - s));
        const char *e = nl ? nl : end;
        jm_line(s, (size_t)(e - s), ++line, out);
        s = e + 1;
    }
}

/* 1..9 decimal digits at *s, stopping at stop; *s moves past them. */
static bool jm_number(const char **s, char stop, uint32_t *v)
{
    unsigned n = 0;
    *v = 0;
    for (; **s >= '0' && **s <= '9'; (*s)++, n++)
        *v = *v * 10 + (uint32_t)(**s - '0');
    return n >= 1 && n <= 9 && **s == stop;
}

bool gs_jobmap_name(const char *name, uint32_t *gpu, uint32_t *gi)
{
    const char *s = name;
    *gi = UINT32_MAX;
    if (jm_number(&s, '\0', gpu))
        return true;
    s = name;
    if (!jm_number(&s, '.', gpu))
        return false;
    s++;
    return jm_number(&s, '\0', gi);
}

/* ---- 2. the published map ------------------------------------------------------------------- */

struct gs_jobmap *gs_jobmap_ref(struct gs_jobmap *m)
{
    if (m)
        atomic_fetch_add(&m->refs, 1);
    return m;
}

void gs_jobmap_unref(struct gs_jobmap *m)
{
    if (!m || atomic_fetch_sub(&m->refs, 1) != 1)
        return;
    for (unsigned i = 0; i < m->n; i++) {
        for (unsigned k = 0; k < m->e[i].njobs; k++)
            free(m->e[i].jobs[k]);
        free(m->e[i].jobs);
    }
    free(m->e);
    free(m);
}

const struct gs_jobmap_gpu *gs_jobmap_find(const struct gs_jobmap *m, uint32_t gpu, uint32_t gi)
{
    for (unsigned i = 0; m && i < m->n; i++)
        if (m->e[i].gpu == gpu && m->e[i].gi == gi)
            return m->e[i].njobs ? &m->e[i] : NULL;
    return NULL;
}

static int jm_cmp(const void *a, const void *b)
{
    const struct gs_jobmap_gpu *x = a, *y = b;
    if (x->gpu != y->gpu)
        return x->gpu < y->gpu ? -1 : 1;
    return x->gi < y->gi ? -1 : x->gi > y->gi;
}

/* ---- 3. the directory watcher ------------------------------------------------------------ */

struct gs_jobmap_dir {
    char *path;
    const char *prefix;
    bool missing;            /* the directory was missing at the last look (logged) */
    bool have_sig;
    uint64_t sig;            /* stat signature of the last read */
    uint64_t reads;
    struct gs_jobmap *cur;   /* NULL: no job known */
};

struct gs_jobmap_dir *gs_jobmap_dir_new(const char *path, const char *log_prefix)
{
    struct gs_jobmap_dir *d = calloc(1, sizeof(*d));
    if (!d || !(d->path = strdup(path))) {
        free(d);
        return NULL;
    }
    d->prefix = log_prefix;
    return d;
}

void gs_jobmap_dir_free(struct gs_jobmap_dir *d)
{
    if (!d)
        return;
    gs_jobmap_unref(d->cur);
    free(d->path);
    free(d);
}

uint64_t gs_jobmap_dir_reads(const struct gs_jobmap_dir *d)
{
    return d->reads;
}

static uint64_t jm_mix(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 1099511628211ull;
    return h;
}

static uint64_t jm_mix_stat(uint64_t h, const struct stat *st)
{
    h = jm_mix(h, &st->st_ino, sizeof(st->st_ino));
    h = jm_mix(h, &st->st_size, sizeof(st->st_size));
    h = jm_mix(h, &st->st_mtim, sizeof(st->st_mtim));
    return jm_mix(h, &st->st_ctim, sizeof(st->st_ctim));
}

/* The directory's stat signature: itself and every mapping file in it. -1: not readable. */
static int jm_signature(struct gs_jobmap_dir *d, uint64_t *sig)
{
    struct stat st;
    DIR *dir = opendir(d->path);
    if (!dir)
        return -1;
    uint64_t h = 14695981039346656037ull;
    if (fstat(dirfd(dir), &st) == 0)
        h = jm_mix_stat(h, &st);
    for (struct dirent *de; (de = readdir(dir));) {
        uint32_t gpu, gi;
        if (!gs_jobmap_name(de->d_name, &gpu, &gi))
            continue;
        h = jm_mix(h, de->d_name, strlen(de->d_name) + 1);
        if (fstatat(dirfd(dir), de->d_name, &st, 0) == 0)
            h = jm_mix_stat(h, &st);
    }
    closedir(dir);
    *sig = h;
    return 0;
}

/* Read one mapping file through dfd: 0 and out filled, or -1 (logged). A FIFO
 * or device never blocks (O_NONBLOCK) and is refused as not a regular file. */
static int jm_read_file(struct gs_jobmap_dir *d, int dfd, const char *name, char *buf,
                        struct gs_jobmap_ids *out)
{
    struct stat st;
    const char *why = NULL;
    int fd = openat(dfd, name, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    ssize_t n = -1;
    if (fd < 0)
        why = strerror(errno);
    else if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
        why = "not a regular file";
    else if (st.st_size > GS_JOBMAP_FILE_MAX)
        why = "larger than 64 KiB: not a job mapping file";
    else if ((n = read(fd, buf, GS_JOBMAP_FILE_MAX + 1)) < 0)
        why = strerror(errno);
    else if (n > GS_JOBMAP_FILE_MAX)
        why = "larger than 64 KiB: not a job mapping file";
    if (fd >= 0)
        close(fd);
    if (why) {
        fprintf(stderr, "%s: job mapping file %s/%s: %s; no hpc_job label from it\n", d->prefix, d->path,
                name, why);
        return -1;
    }
    gs_jobmap_parse(buf, (size_t)n, out);
    if (out->rejected)
        fprintf(stderr, "%s: job mapping file %s/%s:%u: %s; %u line%s left out (one job ID per line)\n",
                d->prefix, d->path, name, out->bad_line, out->bad_why, out->rejected,
                out->rejected == 1 ? "" : "s");
    return 0;
}

/* Turn one file's jobs into an entry of m. -1: out of memory. */
static int jm_add_entry(struct gs_jobmap *m, size_t *cap, uint32_t gpu, uint32_t gi,
                        const struct gs_jobmap_ids *ids)
{
    if (!ids->n)
        return 0;
    struct gs_jobmap_gpu *e = gs_vec_grow(m->e, cap, (size_t)m->n + 1, sizeof(*e));
    if (!e)
        return -1;
    m->e = e;
    e = &m->e[m->n];
    *e = (struct gs_jobmap_gpu){ gpu, gi, 0, calloc(ids->n, sizeof(char *)) };
    if (!e->jobs)
        return -1;
    m->n++;
    for (unsigned k = 0; k < ids->n; k++) {
        if (!(e->jobs[k] = strdup(ids->id[k])))
            return -1;
        e->njobs++;
    }
    return 0;
}

/* Read every mapping file into a new map; NULL with *nomem on out of memory. */
static struct gs_jobmap *jm_read_dir(struct gs_jobmap_dir *d, bool *nomem)
{
    struct gs_jobmap *m = calloc(1, sizeof(*m));
    struct gs_jobmap_ids *ids = malloc(sizeof(*ids));
    char *buf = malloc(GS_JOBMAP_FILE_MAX + 1);
    DIR *dir = NULL;
    size_t cap = 0;

    *nomem = !m || !ids || !buf;
    if (*nomem || !(dir = opendir(d->path)))
        goto out;
    atomic_init(&m->refs, 1);
    for (struct dirent *de; (de = readdir(dir));) {
        uint32_t gpu, gi;
        if (!gs_jobmap_name(de->d_name, &gpu, &gi) || jm_read_file(d, dirfd(dir), de->d_name, buf, ids))
            continue;
        if (jm_add_entry(m, &cap, gpu, gi, ids)) {
            *nomem = true;
            break;
        }
    }
    if (m->n)
        qsort(m->e, m->n, sizeof(*m->e), jm_cmp);
out:
    if (dir)
        closedir(dir);
    free(ids);
    free(buf);
    if (m && (*nomem || !dir)) {
        atomic_init(&m->refs, 1);
        gs_jobmap_unref(m);
        m = NULL;
    }
    return m;
}

struct gs_jobmap *gs_jobmap_dir_tick(struct gs_jobmap_dir *d)
{
    uint64_t sig;
    bool nomem;
    if (jm_signature(d, &sig) != 0) {
        if (!d->missing)
            fprintf(stderr, "%s: job mapping directory %s: %s; no hpc_job labels until it is back\n",
                    d->prefix, d->path, strerror(errno));
        d->missing = true;
        d->have_sig = false;
        gs_jobmap_unref(d->cur);
        return d->cur = NULL;
    }
    if (d->missing)
        fprintf(stderr, "%s: job mapping directory %s is back\n", d->prefix, d->path);
    d->missing = false;
    if (d->have_sig && sig == d->sig)
        return d->cur;
    struct gs_jobmap *m = jm_read_dir(d, &nomem);
    d->reads++;
    if (nomem) {
        fprintf(stderr, "%s: out of memory reading job mapping directory %s; keeping the previous map\n",
                d->prefix, d->path);
        return d->cur; /* tried again next tick: the signature is not kept */
    }
    d->sig = sig;
    d->have_sig = true;
    gs_jobmap_unref(d->cur);
    d->cur = m && m->n ? m : NULL;
    if (m && !m->n)
        gs_jobmap_unref(m);
    return d->cur;
}
