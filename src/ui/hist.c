/* SPDX-License-Identifier: MIT */
/*
 * hist.c - history rings for the charts (per GPU) and the detail view's GPU
 * memory growth (per process). Memory is bounded: cap samples per series,
 * GS_PMEM_SLOTS per process.
 */
#include <stdlib.h>
#include <string.h>

#include "core/err.h"
#include "ui/hist.h"

const char *const gs_metric_names[GS_M_COUNT] = { "util", "mem", "temp", "power" };

void gs_hist_release(struct gs_hist *h)
{
    free(h->v);
    memset(h, 0, sizeof(*h));
}

static uint8_t *series_at(const struct gs_hist *h, uint32_t gpu, enum gs_metric m)
{
    return h->v + ((size_t)gpu * GS_M_COUNT + m) * h->cap;
}

int gs_hist_resize(struct gs_hist *h, uint32_t ngpus, uint32_t cap)
{
    if (ngpus == h->ngpus && cap == h->cap)
        return 0;
    if (!cap)
        cap = 1;
    uint8_t *v = malloc((size_t)(ngpus ? ngpus : 1) * GS_M_COUNT * cap);
    if (!v)
        return -GS_E_NOMEM;
    memset(v, GS_HIST_NONE, (size_t)(ngpus ? ngpus : 1) * GS_M_COUNT * cap);
    uint32_t keep = h->len < cap ? h->len : cap;
    struct gs_hist nh = { ngpus, cap, keep, keep % cap, v };
    for (uint32_t g = 0; g < ngpus && g < h->ngpus; g++)
        for (int m = 0; m < GS_M_COUNT; m++)
            gs_hist_series(h, g, m, series_at(&nh, g, m), keep);
    free(h->v);
    *h = nh;
    return 0;
}

static uint8_t pct_of(double num, double den)
{
    if (den <= 0)
        return GS_HIST_NONE;
    double p = num * 100.0 / den;
    return (uint8_t)(p < 0 ? 0 : p > 100 ? 100 : p + 0.5);
}

uint8_t gs_hist_value(const struct gs_static *st, const struct gs_sample *s, enum gs_metric m)
{
    switch (m) {
    case GS_M_UTIL:
        return gs_sample_has(s, GS_F_GPU_UTIL) ? pct_of(s->gpu_util_pct, 100) : GS_HIST_NONE;
    case GS_M_MEM:
        if (!gs_sample_has(s, GS_F_MEM_USED) || !gs_sample_has(s, GS_F_MEM_TOTAL))
            return GS_HIST_NONE;
        return pct_of((double)s->mem_used_bytes, (double)s->mem_total_bytes);
    case GS_M_TEMP: {
        if (!gs_sample_has(s, GS_F_TEMP_GPU))
            return GS_HIST_NONE;
        int32_t top = gs_static_has(st, GS_S_TEMP_SLOWDOWN) ? st->temp_slowdown_c : 100;
        return pct_of(s->temp_gpu_c, top);
    }
    case GS_M_POWER:
        if (!gs_sample_has(s, GS_F_POWER) || !gs_sample_has(s, GS_F_POWER_LIMIT))
            return GS_HIST_NONE;
        return pct_of(s->power_mw, s->power_limit_mw);
    default:
        return GS_HIST_NONE;
    }
}

void gs_hist_push(struct gs_hist *h, const struct gs_snapshot *snap)
{
    if (!h->v)
        return;
    for (uint32_t g = 0; g < h->ngpus; g++) {
        const struct gs_gpu *gpu = g < snap->ngpus ? &snap->gpus[g] : NULL;
        for (int m = 0; m < GS_M_COUNT; m++) {
            uint8_t v = GS_HIST_NONE;
            if (gpu && gpu->state == GS_GPU_OK)
                v = gs_hist_value(&gpu->st, &gpu->s, m);
            series_at(h, g, m)[h->head] = v;
        }
    }
    h->head = (h->head + 1) % h->cap;
    if (h->len < h->cap)
        h->len++;
}

uint32_t gs_hist_series(const struct gs_hist *h, uint32_t gpu, enum gs_metric m, uint8_t *out,
                        uint32_t n)
{
    if (gpu >= h->ngpus || !h->v)
        return 0;
    if (n > h->len)
        n = h->len;
    const uint8_t *s = series_at(h, gpu, m);
    uint32_t start = (h->head + h->cap - n) % h->cap;
    for (uint32_t i = 0; i < n; i++)
        out[i] = s[(start + i) % h->cap];
    return n;
}

/* ---- per-process memory ------------------------------------------------------------- */

void gs_pmem_release(struct gs_pmem *pm)
{
    free(pm->v);
    memset(pm, 0, sizeof(*pm));
}

static struct gs_pmem_entry *pmem_get(struct gs_pmem *pm, uint32_t pid, uint32_t gpu)
{
    for (size_t i = 0; i < pm->n; i++)
        if (pm->v[i].pid == pid && pm->v[i].gpu == gpu)
            return &pm->v[i];
    if (pm->n == pm->cap) {
        size_t cap = pm->cap ? pm->cap * 2 : 64;
        struct gs_pmem_entry *v = realloc(pm->v, cap * sizeof(*v));
        if (!v)
            return NULL;
        pm->v = v;
        pm->cap = cap;
    }
    struct gs_pmem_entry *e = &pm->v[pm->n++];
    memset(e, 0, sizeof(*e));
    e->pid = pid;
    e->gpu = gpu;
    return e;
}

static void pmem_forget_unseen(struct gs_pmem *pm)
{
    size_t w = 0;
    for (size_t i = 0; i < pm->n; i++)
        if (pm->v[i].seen == pm->gen)
            pm->v[w++] = pm->v[i];
    pm->n = w;
}

void gs_pmem_update(struct gs_pmem *pm, const struct gs_snapshot *snap, int64_t now_s)
{
    if (pm->last_s && now_s - pm->last_s < GS_PMEM_STEP_S)
        return;
    pm->last_s = now_s;
    pm->gen++;
    for (uint32_t g = 0; g < snap->ngpus; g++) {
        const struct gs_gpu *gpu = &snap->gpus[g];
        for (uint32_t i = 0; i < gpu->nprocs; i++) {
            const struct gs_proc *p = &gpu->procs[i];
            struct gs_pmem_entry *e = pmem_get(pm, p->pid, g);
            if (!e)
                return;
            e->seen = pm->gen;
            e->mib[e->head] = (uint32_t)(p->gpu_mem_bytes >> 20);
            e->head = (e->head + 1) % GS_PMEM_SLOTS;
            if (e->n < GS_PMEM_SLOTS)
                e->n++;
            e->last_s = now_s;
        }
    }
    pmem_forget_unseen(pm);
}

uint32_t gs_pmem_series(const struct gs_pmem *pm, uint32_t pid, uint32_t gpu, uint32_t *out)
{
    for (size_t i = 0; i < pm->n; i++) {
        const struct gs_pmem_entry *e = &pm->v[i];
        if (e->pid != pid || e->gpu != gpu)
            continue;
        uint32_t start = (e->head + GS_PMEM_SLOTS - e->n) % GS_PMEM_SLOTS;
        for (uint32_t k = 0; k < e->n; k++)
            out[k] = e->mib[(start + k) % GS_PMEM_SLOTS];
        return e->n;
    }
    return 0;
}
