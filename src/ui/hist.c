/* SPDX-License-Identifier: MIT */
/*
 * hist.c - history rings for the charts (per GPU) and the detail view's GPU
 * memory growth (per process). Memory is bounded: cap samples per series,
 * GS_PMEM_SLOTS per process.
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "core/err.h"
#include "lib/vec.h"
#include "ui/fmt.h"
#include "ui/hist.h"

#include <stdio.h>

/* ---- chart metrics ---------------------------------------------------------------------- */

static bool read_util(const struct gs_static *st, const struct gs_sample *s, double *v, double *scale,
                      bool *named)
{
    (void)st;
    *v = s->gpu_util_pct;
    *scale = 100;
    *named = false;
    return gs_sample_has(s, GS_F_GPU_UTIL);
}

static bool read_mem(const struct gs_static *st, const struct gs_sample *s, double *v, double *scale,
                     bool *named)
{
    (void)st;
    *v = (double)s->mem_used_bytes;
    *scale = (double)s->mem_total_bytes;
    *named = false;
    return gs_sample_has(s, GS_F_MEM_USED) && gs_sample_has(s, GS_F_MEM_TOTAL);
}

/* against the slowdown threshold (where the driver starts to throttle), else 100 C */
static bool read_temp(const struct gs_static *st, const struct gs_sample *s, double *v, double *scale,
                      bool *named)
{
    *v = s->temp_gpu_c;
    *named = gs_static_has(st, GS_S_TEMP_SLOWDOWN);
    *scale = *named ? st->temp_slowdown_c : 100;
    return gs_sample_has(s, GS_F_TEMP_GPU);
}

static bool read_power(const struct gs_static *st, const struct gs_sample *s, double *v, double *scale,
                       bool *named)
{
    (void)st;
    *v = s->power_mw / 1000.0;
    *scale = s->power_limit_mw / 1000.0;
    *named = true;
    return gs_sample_has(s, GS_F_POWER) && gs_sample_has(s, GS_F_POWER_LIMIT);
}

/* GPM activity (Hopper and later): the ratio over the interval between two GPM samples */
#define READ_PROF(k)                                                                               \
    static bool read_prof_##k(const struct gs_static *st, const struct gs_sample *s, double *v,  \
                              double *scale, bool *named)                                          \
    {                                                                                              \
        (void)st;                                                                                  \
        *v = s->prof[GS_PROF_##k] * 100.0;                                                         \
        *scale = 100;                                                                              \
        *named = false;                                                                            \
        return gs_sample_has(s, GS_F_PROF_FIRST + GS_PROF_##k);                                    \
    }
READ_PROF(GR_ENGINE)
READ_PROF(SM_ACTIVE)
READ_PROF(SM_OCCUPANCY)
READ_PROF(TENSOR)
READ_PROF(DRAM)
READ_PROF(FP64)
READ_PROF(FP32)
READ_PROF(FP16)

/* What `g` cycles through, in that order; the settings file names them. A
 * new chart is one line here (and a reader above). */
const struct gs_chart_metric gs_chart_metrics[] = {
    { "util", "utilization", GS_CU_PCT, NULL, read_util },
    { "mem", "memory", GS_CU_BYTES, NULL, read_mem },
    { "temp", "temperature", GS_CU_CELSIUS, "slowdown", read_temp },
    { "power", "power", GS_CU_WATTS, "limit", read_power },
    /* GPM activity ratios (not the byte rates: no scale to draw them against); a GPU without
     * GPM has none, and `g` skips them when no GPU has them */
    { "gr", "GR engine active", GS_CU_PCT, NULL, read_prof_GR_ENGINE },
    { "sm", "SM active", GS_CU_PCT, NULL, read_prof_SM_ACTIVE },
    { "occupancy", "SM occupancy", GS_CU_PCT, NULL, read_prof_SM_OCCUPANCY },
    { "tensor", "tensor active", GS_CU_PCT, NULL, read_prof_TENSOR },
    { "dram", "DRAM active", GS_CU_PCT, NULL, read_prof_DRAM },
    { "fp64", "FP64 active", GS_CU_PCT, NULL, read_prof_FP64 },
    { "fp32", "FP32 active", GS_CU_PCT, NULL, read_prof_FP32 },
    { "fp16", "FP16 active", GS_CU_PCT, NULL, read_prof_FP16 },
};
const unsigned gs_chart_nmetrics = sizeof(gs_chart_metrics) / sizeof(gs_chart_metrics[0]);
_Static_assert(sizeof(gs_chart_metrics) / sizeof(gs_chart_metrics[0]) <= GS_CHART_METRICS_MAX,
               "more chart metrics than GS_CHART_METRICS_MAX");

int gs_chart_metric_index(const char *name)
{
    for (unsigned i = 0; i < gs_chart_nmetrics; i++)
        if (!strcmp(gs_chart_metrics[i].name, name))
            return (int)i;
    return -1;
}

void gs_chart_metric_text(unsigned m, const struct gs_static *st, const struct gs_sample *s, char *buf,
                          size_t len)
{
    const struct gs_chart_metric *cm = m < gs_chart_nmetrics ? &gs_chart_metrics[m] : NULL;
    double v, top;
    bool named;
    char u1[16], u2[16];

    if (!cm || !cm->read(st, s, &v, &top, &named) || (cm->unit == GS_CU_PCT && (v < 0 || v > 100))) {
        snprintf(buf, len, "N/A");
        return;
    }
    const char *what = named && cm->scale_name ? cm->scale_name : "";
    const char *sp = what[0] ? " " : "";
    switch (cm->unit) {
    case GS_CU_PCT:
        snprintf(buf, len, "%.0f%%", v);
        break;
    case GS_CU_BYTES:
        snprintf(buf, len, "%s of %s%s%s", gs_fmt_bytes((uint64_t)v, u1, sizeof(u1)),
                 gs_fmt_bytes((uint64_t)top, u2, sizeof(u2)), sp, what);
        break;
    case GS_CU_CELSIUS:
        snprintf(buf, len, "%dC of %dC%s%s", (int)v, (int)top, sp, what);
        break;
    case GS_CU_WATTS: /* whole watts, halves up */
        snprintf(buf, len, "%uW of %uW%s%s", (unsigned)(v + 0.5), (unsigned)(top + 0.5), sp, what);
        break;
    }
}

unsigned gs_chart_metric_next(unsigned m, const struct gs_snapshot *snap)
{
    for (unsigned k = 1; k <= gs_chart_nmetrics; k++) {
        unsigned c = (m + k) % gs_chart_nmetrics;
        for (uint32_t g = 0; snap && g < snap->ngpus; g++)
            if (gs_hist_value(&snap->gpus[g].st, &snap->gpus[g].s, c) != GS_HIST_NONE)
                return c;
    }
    return m;
}

/* ---- per-GPU history --------------------------------------------------------------------- */

void gs_hist_release(struct gs_hist *h)
{
    free(h->v);
    memset(h, 0, sizeof(*h));
}

static uint8_t *series_at(const struct gs_hist *h, uint32_t gpu, unsigned m)
{
    assert(h->v && gpu < (h->ngpus ? h->ngpus : 1) && m < gs_chart_nmetrics);
    return h->v + ((size_t)gpu * gs_chart_nmetrics + m) * h->cap;
}

int gs_hist_resize(struct gs_hist *h, uint32_t ngpus, uint32_t cap)
{
    if (ngpus == h->ngpus && cap == h->cap)
        return 0;
    if (!cap)
        cap = 1;
    uint8_t *v = malloc((size_t)(ngpus ? ngpus : 1) * gs_chart_nmetrics * cap);
    if (!v)
        return -GS_E_NOMEM;
    memset(v, GS_HIST_NONE, (size_t)(ngpus ? ngpus : 1) * gs_chart_nmetrics * cap);
    uint32_t keep = h->len < cap ? h->len : cap;
    struct gs_hist nh = { ngpus, cap, keep, keep % cap, v };
    for (uint32_t g = 0; g < ngpus && g < h->ngpus; g++)
        for (unsigned m = 0; m < gs_chart_nmetrics; m++)
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

uint8_t gs_hist_value(const struct gs_static *st, const struct gs_sample *s, unsigned m)
{
    double v, top;
    bool named;

    if (m >= gs_chart_nmetrics || !gs_chart_metrics[m].read(st, s, &v, &top, &named))
        return GS_HIST_NONE;
    return pct_of(v, top);
}

void gs_hist_push(struct gs_hist *h, const struct gs_snapshot *snap)
{
    if (!h->v)
        return;
    for (uint32_t g = 0; g < h->ngpus; g++) {
        const struct gs_gpu *gpu = g < snap->ngpus ? &snap->gpus[g] : NULL;
        for (unsigned m = 0; m < gs_chart_nmetrics; m++) {
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

uint32_t gs_hist_series(const struct gs_hist *h, uint32_t gpu, unsigned m, uint8_t *out,
                        uint32_t n)
{
    if (gpu >= h->ngpus || m >= gs_chart_nmetrics || !h->v)
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

/* The entry of (pid, gpu), added when new. The search starts at *at, the
 * entry after the one found last: a snapshot lists the processes in the
 * order of the previous one, so each is found at once (not in n steps). */
static struct gs_pmem_entry *pmem_get(struct gs_pmem *pm, uint32_t pid, uint32_t gpu, size_t *at)
{
    for (size_t k = 0; k < pm->n; k++) {
        size_t i = (*at + k) % pm->n;
        if (pm->v[i].pid == pid && pm->v[i].gpu == gpu) {
            *at = i + 1;
            return &pm->v[i];
        }
    }
    struct gs_pmem_entry *v = gs_vec_grow(pm->v, &pm->cap, pm->n + 1, sizeof(*v));
    if (!v)
        return NULL;
    pm->v = v;
    struct gs_pmem_entry *e = &pm->v[pm->n++];
    *at = pm->n;
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
    size_t at = 0;
    for (uint32_t g = 0; g < snap->ngpus; g++) {
        const struct gs_gpu *gpu = &snap->gpus[g];
        for (uint32_t i = 0; i < gpu->nprocs; i++) {
            const struct gs_proc *p = &gpu->procs[i];
            struct gs_pmem_entry *e = pmem_get(pm, p->pid, g, &at);
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
