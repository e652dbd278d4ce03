/* SPDX-License-Identifier: MIT */
/*
 * rows.c - the process table's rows: build from a snapshot, filter, sort,
 * arrange as a tree. No curses here (see table.c for the drawing).
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/err.h"
#include "lib/vec.h"
#include "ui/rows.h"

const struct gs_coldef gs_cols[GS_COL_COUNT] = {
    [GS_COL_PID] = { "PID", "pid", 7, 0, true, false },
    [GS_COL_USER] = { "USER", "user", 9, 0, false, false },
    [GS_COL_GPU] = { "GPU", "gpu", 3, 0, true, false },
    [GS_COL_TYPE] = { "T", "type", 1, 0, false, false },
    [GS_COL_GMEM] = { "GPU-MEM", "gpumem", 8, 0, true, true },
    [GS_COL_SM] = { "SM%", "sm", 4, 0, true, true },
    [GS_COL_MBW] = { "MBW%", "mbw", 4, 110, true, true },
    [GS_COL_ENC] = { "ENC", "enc", 3, 130, true, true },
    [GS_COL_DEC] = { "DEC", "dec", 3, 130, true, true },
    [GS_COL_CPU] = { "CPU%", "cpu", 5, 0, true, true },
    [GS_COL_HMEM] = { "HOST-MEM", "hostmem", 8, 100, true, true },
    [GS_COL_TIME] = { "TIME", "time", 8, 90, true, true },
    [GS_COL_JOB] = { "JOB", "job", 10, 0, false, false },
    [GS_COL_CONT] = { "CONTAINER", "container", 12, 150, false, false },
    [GS_COL_CMD] = { "COMMAND", "command", 0, 0, false, false },
};

int gs_col_by_key(const char *key)
{
    for (int c = 0; c < GS_COL_COUNT; c++)
        if (!strcmp(gs_cols[c].key, key))
            return c;
    return -1;
}

void gs_rows_release(struct gs_rows *r)
{
    free(r->v);
    memset(r, 0, sizeof(*r));
}

static int rows_reserve(struct gs_rows *r, size_t n)
{
    struct gs_row *v = gs_vec_grow(r->v, &r->cap, n, sizeof(*v));
    if (!v)
        return -GS_E_NOMEM;
    r->v = v;
    return 0;
}

int gs_rows_build(struct gs_rows *r, const struct gs_snapshot *snap, const char *filter)
{
    size_t total = 0;

    for (uint32_t g = 0; g < snap->ngpus; g++)
        total += snap->gpus[g].nprocs;
    if (rows_reserve(r, total) < 0)
        return -GS_E_NOMEM;
    r->n = 0;
    for (uint32_t g = 0; g < snap->ngpus; g++) {
        const struct gs_gpu *gpu = &snap->gpus[g];
        for (uint32_t i = 0; i < gpu->nprocs; i++) {
            if (filter && *filter && !gs_row_match(&gpu->text, &gpu->procs[i], g, filter))
                continue;
            r->v[r->n++] = (struct gs_row){ .p = &gpu->procs[i], .gpu = g, .idx = i,
                                          .cmd = gs_proc_cmdline(&gpu->text, &gpu->procs[i]),
                                          .pid = gpu->procs[i].pid };
        }
    }
    return 0;
}

/* ---- filtering ---------------------------------------------------------------------- */

static bool has_text(const char *hay, const char *needle, size_t nlen)
{
    for (; *hay; hay++)
        if (!strncasecmp(hay, needle, nlen))
            return true;
    return false;
}

static char type_letter(uint32_t type)
{
    if (type & GS_PROC_MPS)
        return 'm';
    if (type & GS_PROC_GRAPHICS)
        return (type & GS_PROC_COMPUTE) ? 'x' : 'g';
    return 'c';
}

static bool term_match(const char *cmd, const struct gs_proc *p, uint32_t gpu, const char *t, size_t len)
{
    char num[24];

    if (len > 5 && !strncasecmp(t, "user:", 5))
        return len - 5 == strlen(p->user) && !strncasecmp(p->user, t + 5, len - 5);
    if (len > 4 && !strncasecmp(t, "gpu:", 4))
        return strtoul(t + 4, NULL, 10) == gpu;
    if (len > 4 && !strncasecmp(t, "pid:", 4))
        return strtoul(t + 4, NULL, 10) == p->pid;
    if (len == 6 && !strncasecmp(t, "type:", 5)) {
        char want = (char)tolower((unsigned char)t[5]);
        char have = type_letter(p->type);
        return have == want || (have == 'x' && (want == 'c' || want == 'g'));
    }
    snprintf(num, sizeof(num), "%u", p->pid);
    return has_text(num, t, len) || has_text(p->user, t, len) || has_text(p->comm, t, len) ||
           has_text(cmd, t, len) || has_text(p->container_id, t, len) ||
           has_text(p->pod_uid, t, len);
}

bool gs_row_match(const struct gs_text *text, const struct gs_proc *p, uint32_t gpu_index, const char *filter)
{
    const char *s = filter;

    while (*s) {
        while (*s == ' ')
            s++;
        size_t len = strcspn(s, " ");
        if (len && !term_match(gs_proc_cmdline(text, p), p, gpu_index, s, len))
            return false;
        s += len;
    }
    return true;
}

/* ---- sorting ------------------------------------------------------------------------- */

static int cmp_u64(uint64_t a, uint64_t b)
{
    return a < b ? -1 : a > b;
}

/* Missing values sort after present ones whatever the direction (handled by caller). */
static bool col_present(const struct gs_proc *p, enum gs_col col)
{
    static const int need[GS_COL_COUNT] = {
        [GS_COL_PID] = -1,          [GS_COL_USER] = GS_P_USER,    [GS_COL_GPU] = -1,
        [GS_COL_TYPE] = -1,         [GS_COL_GMEM] = GS_P_GPU_MEM, [GS_COL_SM] = GS_P_SM_UTIL,
        [GS_COL_MBW] = GS_P_MEM_UTIL, [GS_COL_ENC] = GS_P_ENC_UTIL, [GS_COL_DEC] = GS_P_DEC_UTIL,
        [GS_COL_CPU] = GS_P_CPU,    [GS_COL_HMEM] = GS_P_RSS,     [GS_COL_TIME] = GS_P_START,
        [GS_COL_JOB] = GS_P_SLURM,  [GS_COL_CONT] = -1,         [GS_COL_CMD] = GS_P_COMM,
    };
    return need[col] < 0 || gs_proc_has(p, (enum gs_pfield)need[col]);
}

static int cmp_value(const struct gs_row *a, const struct gs_row *b, enum gs_col col)
{
    const struct gs_proc *x = a->p, *y = b->p;

    switch (col) {
    case GS_COL_PID: return cmp_u64(x->pid, y->pid);
    case GS_COL_USER: return strcmp(x->user, y->user);
    case GS_COL_GPU: return cmp_u64(a->gpu, b->gpu);
    case GS_COL_TYPE: return cmp_u64(x->type, y->type);
    case GS_COL_GMEM: return cmp_u64(x->gpu_mem_bytes, y->gpu_mem_bytes);
    case GS_COL_SM: return cmp_u64(x->sm_util_pct, y->sm_util_pct);
    case GS_COL_MBW: return cmp_u64(x->mem_util_pct, y->mem_util_pct);
    case GS_COL_ENC: return cmp_u64(x->enc_util_pct, y->enc_util_pct);
    case GS_COL_DEC: return cmp_u64(x->dec_util_pct, y->dec_util_pct);
    case GS_COL_CPU: return x->cpu_pct < y->cpu_pct ? -1 : x->cpu_pct > y->cpu_pct;
    case GS_COL_HMEM: return cmp_u64(x->rss_bytes, y->rss_bytes);
    case GS_COL_TIME: return cmp_u64(x->age_s, y->age_s);
    case GS_COL_JOB: return cmp_u64(x->slurm_job, y->slurm_job);
    case GS_COL_CONT: return strcmp(x->container_id, y->container_id);
    case GS_COL_CMD: return strcmp(a->cmd[0] ? a->cmd : x->comm, b->cmd[0] ? b->cmd : y->comm);
    default: return 0;
    }
}

int gs_row_cmp(const struct gs_row *a, const struct gs_row *b, enum gs_col col)
{
    bool ha = col_present(a->p, col), hb = col_present(b->p, col);

    if (ha != hb)
        return ha ? -1 : 1;
    return ha ? cmp_value(a, b, col) : 0;
}

struct sort_key {
    bool desc, text;
};

/* Keys computed once per row, so the comparator does no per-column dispatch. */
static void row_key(struct gs_row *row, enum gs_col col)
{
    const struct gs_proc *x = row->p;

    row->has_key = col_present(x, col);
    row->skey = NULL;
    switch (col) {
    case GS_COL_PID: row->key = x->pid; break;
    case GS_COL_USER: row->skey = x->user; break;
    case GS_COL_GPU: row->key = row->gpu; break;
    case GS_COL_TYPE: row->key = x->type; break;
    case GS_COL_GMEM: row->key = x->gpu_mem_bytes; break;
    case GS_COL_SM: row->key = x->sm_util_pct; break;
    case GS_COL_MBW: row->key = x->mem_util_pct; break;
    case GS_COL_ENC: row->key = x->enc_util_pct; break;
    case GS_COL_DEC: row->key = x->dec_util_pct; break;
    case GS_COL_CPU: row->key = x->cpu_pct > 0 ? (uint64_t)(x->cpu_pct * 1e6) : 0; break;
    case GS_COL_HMEM: row->key = x->rss_bytes; break;
    case GS_COL_TIME: row->key = x->age_s; break;
    case GS_COL_JOB: row->key = x->slurm_job; break;
    case GS_COL_CONT: row->skey = x->container_id; break;
    case GS_COL_CMD: row->skey = row->cmd[0] ? row->cmd : x->comm; break;
    default: row->key = 0; break;
    }
}

static int row_qsort_cmp(const void *va, const void *vb, void *arg)
{
    const struct gs_row *a = va, *b = vb;
    const struct sort_key *k = arg;
    int c = 0;

    if (a->has_key != b->has_key)
        return a->has_key ? -1 : 1; /* missing values last in both directions */
    if (a->has_key)
        c = k->text ? strcmp(a->skey, b->skey) : cmp_u64(a->key, b->key);
    if (k->desc)
        c = -c;
    if (!c)
        c = cmp_u64(a->p->pid, b->p->pid);
    if (!c)
        c = cmp_u64(a->gpu, b->gpu);
    return c;
}

/* A numeric column's order as one record (row_qsort_cmp's, without calls per
 * comparison): missing values last, the key (flipped when descending), PID, GPU. */
struct num_rec {
    uint32_t miss, i;
    uint64_t k, tie;
};

static bool num_before(const struct num_rec *a, const struct num_rec *b)
{
    if (a->miss != b->miss)
        return a->miss < b->miss;
    if (a->k != b->k)
        return a->k < b->k;
    return a->tie < b->tie;
}

/* Bottom-up merge sort of n records, tmp as large; returns the sorted copy. */
static struct num_rec *num_sort(struct num_rec *v, struct num_rec *tmp, size_t n)
{
    for (size_t w = 1; w < n; w *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * w) {
            size_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
            size_t a = lo, b = mid, o = lo;
            while (a < mid && b < hi)
                tmp[o++] = num_before(&v[b], &v[a]) ? v[b++] : v[a++];
            while (a < mid)
                tmp[o++] = v[a++];
            while (b < hi)
                tmp[o++] = v[b++];
        }
        struct num_rec *t = v;
        v = tmp;
        tmp = t;
    }
    return v;
}

/* The rows in numeric order through records; -1 when out of memory (nothing changed). */
static int sort_numeric(struct gs_rows *r, bool desc)
{
    struct num_rec *rec = malloc(r->n * 2 * sizeof(*rec));
    struct gs_row *copy = malloc(r->n * sizeof(*copy));
    if (!rec || !copy) {
        free(rec);
        free(copy);
        return -1;
    }
    for (size_t i = 0; i < r->n; i++) {
        const struct gs_row *row = &r->v[i];
        rec[i] = (struct num_rec){ !row->has_key, (uint32_t)i,
                                   !row->has_key ? 0 : desc ? ~row->key : row->key,
                                   ((uint64_t)row->p->pid << 32) | row->gpu };
    }
    const struct num_rec *sorted = num_sort(rec, rec + r->n, r->n);
    memcpy(copy, r->v, r->n * sizeof(*copy));
    for (size_t i = 0; i < r->n; i++)
        r->v[i] = copy[sorted[i].i];
    free(rec);
    free(copy);
    return 0;
}

void gs_rows_sort(struct gs_rows *r, enum gs_col col, bool desc)
{
    struct sort_key k = { desc, col == GS_COL_USER || col == GS_COL_CONT || col == GS_COL_CMD };

    if (r->n < 2)
        return;
    for (size_t i = 0; i < r->n; i++)
        row_key(&r->v[i], col);
    if (!k.text && sort_numeric(r, desc) == 0)
        return;
    qsort_r(r->v, r->n, sizeof(r->v[0]), row_qsort_cmp, &k);
}

bool gs_rows_repoint(struct gs_rows *r, const struct gs_snapshot *snap)
{
    for (size_t i = 0; i < r->n; i++) {
        const struct gs_row *row = &r->v[i];
        if (row->gpu >= snap->ngpus || row->idx >= snap->gpus[row->gpu].nprocs ||
            snap->gpus[row->gpu].procs[row->idx].pid != row->pid)
            return false;
    }
    for (size_t i = 0; i < r->n; i++) {
        const struct gs_gpu *g = &snap->gpus[r->v[i].gpu];
        r->v[i].p = &g->procs[r->v[i].idx];
        r->v[i].cmd = gs_proc_cmdline(&g->text, r->v[i].p);
    }
    return true;
}

static uint64_t mix(uint64_t h, uint64_t v)
{
    h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    return h;
}

static uint64_t mix_text(uint64_t h, const char *s, size_t max)
{
    for (size_t i = 0; i < max && s[i]; i++)
        h = (h ^ (unsigned char)s[i]) * 0x100000001b3ull;
    return h;
}

uint64_t gs_rows_fingerprint(const struct gs_snapshot *snap)
{
    uint64_t h = 0xcbf29ce484222325ull;

    h = mix(h, snap->ngpus);
    for (uint32_t g = 0; g < snap->ngpus; g++) {
        const struct gs_gpu *gpu = &snap->gpus[g];
        h = mix(h, ((uint64_t)gpu->state << 32) | gpu->nprocs);
        for (uint32_t i = 0; i < gpu->nprocs; i++) {
            const struct gs_proc *p = &gpu->procs[i];
            h = mix(h, ((uint64_t)p->pid << 32) | p->valid);
            h = mix(h, ((uint64_t)p->type << 40) | ((uint64_t)p->host_vis << 32) | p->ppid);
            h = mix(h, p->gpu_mem_bytes);
            h = mix(h, ((uint64_t)p->sm_util_pct << 48) | ((uint64_t)p->mem_util_pct << 32) |
                           (p->enc_util_pct << 16) | p->dec_util_pct);
            h = mix(h, (uint64_t)(p->cpu_pct * 10.0 + 0.5));
            h = mix(h, p->rss_bytes);
            h = mix(h, p->age_s);
            h = mix_text(h, p->comm, 8);
            h = mix_text(h, gs_proc_cmdline(&gpu->text, p), 16);
            h = mix_text(h, p->user, 4);
            h = mix_text(h, p->container_id, 4);
            h = mix_text(h, p->pod_uid, 4);
        }
    }
    return h;
}

long gs_rows_find(const struct gs_rows *r, uint32_t pid, uint32_t gpu)
{
    for (size_t i = 0; i < r->n; i++)
        if (r->v[i].p->pid == pid && r->v[i].gpu == gpu)
            return (long)i;
    return -1;
}

/* ---- tree view ----------------------------------------------------------------------- */

struct pid_idx {
    uint32_t pid;
    uint32_t idx;
};

static int pid_idx_cmp(const void *a, const void *b)
{
    const struct pid_idx *x = a, *y = b;
    if (x->pid != y->pid)
        return x->pid < y->pid ? -1 : 1;
    return x->idx < y->idx ? -1 : x->idx > y->idx;
}

struct tree_ctx {
    const struct gs_row *in;
    struct gs_row *out;
    size_t nout;
    long *first_child, *next_sibling;
    bool *done;
};

static void tree_emit(struct tree_ctx *t, size_t i, uint16_t depth, bool last)
{
    if (t->done[i])
        return;
    t->done[i] = true;
    t->out[t->nout] = t->in[i];
    t->out[t->nout].depth = depth;
    t->out[t->nout].last_child = last;
    t->nout++;
    for (long c = t->first_child[i]; c >= 0; c = t->next_sibling[c])
        tree_emit(t, (size_t)c, (uint16_t)(depth < 32 ? depth + 1 : depth), t->next_sibling[c] < 0);
}

/* parent[i] = row index of the first row whose PID is row i's parent, or -1. */
static void tree_parents(const struct gs_rows *r, struct pid_idx *map, long *parent)
{
    for (size_t i = 0; i < r->n; i++)
        map[i] = (struct pid_idx){ r->v[i].p->pid, (uint32_t)i };
    qsort(map, r->n, sizeof(*map), pid_idx_cmp);
    for (size_t i = 0; i < r->n; i++) {
        const struct gs_proc *p = r->v[i].p;
        parent[i] = -1;
        if (!gs_proc_has(p, GS_P_PARENT) || p->ppid == p->pid)
            continue;
        size_t lo = 0, hi = r->n;
        while (lo < hi) { /* lower bound of ppid: the first row of that PID */
            size_t mid = (lo + hi) / 2;
            if (map[mid].pid < p->ppid)
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo < r->n && map[lo].pid == p->ppid)
            parent[i] = map[lo].idx;
    }
}

/* Insert the extra processes that parent a row, each before its first child. */
static int add_extra_parents(struct gs_rows *r, const struct gs_proc *extra, const struct gs_text *text,
                             size_t nextra)
{
    size_t n = r->n, add = 0;
    bool *used = calloc(nextra ? nextra : 1, sizeof(*used));
    long *first = malloc((nextra ? nextra : 1) * sizeof(*first));
    if (!used || !first) {
        free(used);
        free(first);
        return -GS_E_NOMEM;
    }
    for (size_t e = 0; e < nextra; e++) {
        first[e] = -1;
        for (size_t i = 0; i < n && first[e] < 0; i++)
            if (gs_proc_has(r->v[i].p, GS_P_PARENT) && r->v[i].p->ppid == extra[e].pid &&
                r->v[i].p->pid != extra[e].pid)
                first[e] = (long)i;
        add += first[e] >= 0;
    }
    int rc = rows_reserve(r, n + add);
    struct gs_row *out = rc == 0 && add ? malloc((n + add) * sizeof(*out)) : NULL;
    if (rc == 0 && add && !out)
        rc = -GS_E_NOMEM;
    if (rc == 0 && add) {
        size_t k = 0;
        for (size_t i = 0; i < n; i++) {
            for (size_t e = 0; e < nextra; e++)
                if (first[e] == (long)i && !used[e]) {
                    used[e] = true;
                    out[k++] = (struct gs_row){ .p = &extra[e], .gpu = GS_ROW_NO_GPU,
                                                .cmd = gs_proc_cmdline(text, &extra[e]),
                                                .pid = extra[e].pid, .virt = true };
                }
            out[k++] = r->v[i];
        }
        memcpy(r->v, out, k * sizeof(*out));
        r->n = k;
    }
    free(out);
    free(used);
    free(first);
    return rc;
}

int gs_rows_tree_with(struct gs_rows *r, const struct gs_proc *extra, const struct gs_text *extra_text,
                      size_t nextra)
{
    int rc = nextra ? add_extra_parents(r, extra, extra_text, nextra) : 0;
    return rc < 0 ? rc : gs_rows_tree(r);
}

int gs_rows_tree(struct gs_rows *r)
{
    size_t n = r->n;
    if (n < 2)
        return 0;
    struct pid_idx *map = malloc(n * sizeof(*map));
    long *links = malloc(3 * n * sizeof(*links));
    bool *done = calloc(n, sizeof(*done));
    struct gs_row *out = malloc(n * sizeof(*out));
    int rc = -GS_E_NOMEM;
    if (!map || !links || !done || !out)
        goto free_all;
    long *parent = links, *first = links + n, *next = links + 2 * n;
    tree_parents(r, map, parent);
    for (size_t i = 0; i < n; i++)
        first[i] = next[i] = -1;
    for (size_t j = n; j-- > 0;) { /* prepend in reverse: children keep sort order */
        if (parent[j] < 0)
            continue;
        next[j] = first[parent[j]];
        first[parent[j]] = (long)j;
    }
    struct tree_ctx t = { r->v, out, 0, first, next, done };
    for (size_t i = 0; i < n; i++)
        if (parent[i] < 0)
            tree_emit(&t, i, 0, false);
    for (size_t i = 0; i < n; i++) /* cycles: whatever is left becomes a root */
        tree_emit(&t, i, 0, false);
    memcpy(r->v, out, n * sizeof(*out));
    rc = 0;
free_all:
    free(map);
    free(links);
    free(done);
    free(out);
    return rc;
}
