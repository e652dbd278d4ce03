/* SPDX-License-Identifier: MIT */
/*
 * ancestry.c - non-GPU parents of GPU processes for the tree view (see ancestry.h).
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/err.h"
#include "core/hostproc.h"
#include "lib/vec.h"
#include "ui/ancestry.h"
#include "lib/roots.h"

void gs_ancestry_release(struct gs_ancestry *a)
{
    if (a->hp)
        gs_hostproc_close(a->hp);
    free(a->v);
    free(a->seen);
    gs_text_release(&a->text);
    memset(a, 0, sizeof(*a));
}

static int cmp_u32(const void *x, const void *y)
{
    uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
    return a < b ? -1 : a > b;
}

/* Sorted PIDs of the snapshot's GPU processes (caller frees), count in *n. */
static uint32_t *gpu_pids(const struct gs_snapshot *snap, size_t *n)
{
    size_t total = 0, k = 0;
    for (uint32_t g = 0; g < snap->ngpus; g++)
        total += snap->gpus[g].nprocs;
    uint32_t *v = malloc((total ? total : 1) * sizeof(*v));
    if (!v)
        return NULL;
    for (uint32_t g = 0; g < snap->ngpus; g++)
        for (uint32_t i = 0; i < snap->gpus[g].nprocs; i++)
            v[k++] = snap->gpus[g].procs[i].pid;
    qsort(v, k, sizeof(*v), cmp_u32);
    *n = k;
    return v;
}

static long find(const struct gs_ancestry *a, uint32_t pid)
{
    for (size_t i = 0; i < a->n; i++)
        if (a->v[i].pid == pid)
            return (long)i;
    return -1;
}

static int grow(struct gs_ancestry *a)
{
    if (a->n < a->cap)
        return 0;
    /* two arrays, one capacity: both grow by the same policy from the same size */
    size_t vcap = a->cap, scap = a->cap;
    struct gs_proc *v = gs_vec_grow(a->v, &vcap, a->n + 1, sizeof(*v));
    if (!v)
        return -GS_E_NOMEM;
    a->v = v; /* (a larger block, a->cap unchanged: still consistent) */
    uint32_t *s = gs_vec_grow(a->seen, &scap, a->n + 1, sizeof(*s));
    if (!s)
        return -GS_E_NOMEM;
    assert(vcap == scap);
    a->seen = s;
    a->cap = vcap;
    return 0;
}

/* Read a new parent from /proc; nothing is added when it is gone or invisible. */
static int add_parent(struct gs_ancestry *a, uint32_t pid)
{
    if (!a->hp_tried) {
        a->hp_tried = 1;
        if (gs_hostproc_open(&a->hp, gs_proc_root_env(a->proc_root)) < 0)
            a->hp = NULL;
    }
    if (!a->hp || grow(a) < 0)
        return a->hp ? -GS_E_NOMEM : 0;
    struct gs_proc *p = &a->v[a->n];
    memset(p, 0, sizeof(*p));
    p->pid = pid;
    p->gpu_instance_id = p->compute_instance_id = UINT32_MAX;
    struct timespec mono, wall;
    clock_gettime(CLOCK_MONOTONIC, &mono);
    clock_gettime(CLOCK_REALTIME, &wall);
    gs_hostproc_begin(a->hp, (uint64_t)mono.tv_sec * 1000000000ull + (uint64_t)mono.tv_nsec,
                      (int64_t)wall.tv_sec);
    gs_hostproc_fill(a->hp, &a->text, p);
    gs_hostproc_end(a->hp);
    a->reads++;
    if (p->host_vis != GS_HOST_VISIBLE)
        return 0;
    a->seen[a->n++] = a->gen;
    return 0;
}

/* Keep in a->text only the command lines of the first keep parents, so that
 * parents coming and going over days do not grow it. (Out of memory, a parent
 * loses its command line and comm, as in gs_hostproc_fill: gs_proc_set_cmdline.) */
static void compact_text(struct gs_ancestry *a, size_t keep)
{
    struct gs_text t = {0};

    for (size_t i = 0; i < keep; i++) {
        struct gs_proc *p = &a->v[i];
        const char *cmd = gs_proc_cmdline(&a->text, p);
        size_t len = strlen(cmd);
        const uint8_t *sep = len ? (const uint8_t *)cmd + len + 1 : NULL;
        (void)gs_proc_set_cmdline(&t, p, cmd, len, sep, len ? p->cmd_sep_bytes : 0);
    }
    gs_text_release(&a->text);
    a->text = t;
}

int gs_ancestry_update(struct gs_ancestry *a, const struct gs_snapshot *snap)
{
    size_t np = 0;
    uint32_t *pids = gpu_pids(snap, &np);
    int rc = 0;

    if (!pids)
        return -GS_E_NOMEM;
    a->gen++;
    for (uint32_t g = 0; g < snap->ngpus && rc == 0; g++)
        for (uint32_t i = 0; i < snap->gpus[g].nprocs && rc == 0; i++) {
            const struct gs_proc *p = &snap->gpus[g].procs[i];
            if (!gs_proc_has(p, GS_P_PARENT) || p->ppid <= 1 || p->ppid == p->pid ||
                bsearch(&p->ppid, pids, np, sizeof(*pids), cmp_u32))
                continue;
            long k = find(a, p->ppid);
            if (k >= 0)
                a->seen[k] = a->gen;
            else
                rc = add_parent(a, p->ppid);
        }
    size_t keep = 0; /* forget parents no GPU process has any more */
    for (size_t i = 0; i < a->n; i++)
        if (a->seen[i] == a->gen) {
            a->v[keep] = a->v[i];
            a->seen[keep++] = a->gen;
        }
    if (keep < a->n)
        compact_text(a, keep);
    a->n = keep;
    free(pids);
    return rc;
}
