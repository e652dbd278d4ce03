/* SPDX-License-Identifier: MIT */
/*
 * health.c - the exporter's health findings: the health engine (src/health/)
 * fed every snapshot on the sampler thread and evaluated each tick, reduced
 * (at most about once a second, at once when a snapshot brings driver events,
 * so its windows are in seconds whatever --interval is), reduced
 * to what a metric label may carry (GPU, code, severity, PID: a bounded set,
 * no free text). prom_fams.c renders them as gpuscope_health_finding and
 * gpuscope_health_findings (docs/SERVE.md).
 */
#include "serve/prom.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/err.h"
#include "health/health.h"
#include "lib/vec.h"

struct gs_prom_health_run {
    struct gs_health *h;
    struct gs_findings f;
    struct gs_prom_health *v;   /* the latest evaluation, compact */
    size_t n, cap;
    uint64_t first_ns;
    int64_t eval_ms;            /* engine time of the latest evaluation, -1: none */
};

#define HEALTH_EVAL_MS 900

struct gs_prom_health_run *gs_prom_health_new(void)
{
    struct gs_health_cfg cfg;
    struct gs_prom_health_run *r = calloc(1, sizeof(*r));
    if (!r)
        return NULL;
    gs_health_cfg_default(&cfg);
    cfg.recent_s = 60; /* as watch: throttle shares and job means over the last minute */
    /* The exporter keeps what its checks need, as top does: 5 minutes per GPU,
     * 90 samples per process (the leak check needs 60 s), at most 1024 processes; the
     * doctor's 10-minute windows would cost ~3 MiB of the 10 MiB budget. */
    cfg.ring_samples = 300;
    cfg.proc_ring_samples = 90;
    cfg.max_procs = 1024;
    if (!(r->h = gs_health_new(&cfg))) {
        free(r);
        return NULL;
    }
    r->eval_ms = -1;
    return r;
}

void gs_prom_health_free(struct gs_prom_health_run *r)
{
    if (!r)
        return;
    gs_health_free(r->h);
    gs_findings_free(&r->f);
    free(r->v);
    free(r);
}

static int compact(struct gs_prom_health_run *r)
{
    if (r->f.n > r->cap) { /* (no findings: nothing allocated) */
        struct gs_prom_health *v = gs_vec_grow(r->v, &r->cap, r->f.n, sizeof(*v));
        if (!v)
            return -GS_E_NOMEM; /* the latest list stays whole */
        r->v = v;
    }
    for (size_t i = 0; i < r->f.n; i++) {
        const struct gs_finding *f = &r->f.v[i];
        struct gs_prom_health *x = &r->v[i];
        x->gpu = f->gpu;
        x->pid = f->pid;
        x->severity = f->severity;
        snprintf(x->code, sizeof(x->code), "%s", f->code);
    }
    r->n = r->f.n;
    return 0;
}

int gs_prom_health_tick(struct gs_prom_health_run *r, const struct gs_snapshot *snap, int rc)
{
    if (rc < 0 && rc != -GS_E_GPU_LOST && rc != -GS_E_BACKEND)
        return 0; /* NVML failing as a whole: keep the latest findings */
    if (!r->first_ns)
        r->first_ns = snap->mono_ns ? snap->mono_ns : 1;
    int64_t t_ms = (int64_t)((snap->mono_ns - r->first_ns) / 1000000ull);
    if (r->eval_ms >= 0 && t_ms - r->eval_ms < HEALTH_EVAL_MS && !snap->nevents)
        return 0;
    r->eval_ms = t_ms;
    gs_health_add(r->h, snap, t_ms);
    if (gs_health_eval(r->h, &r->f) < 0)
        return -GS_E_NOMEM; /* findings lost: keep the latest whole list rather than publish a cut one */
    return compact(r);
}

const struct gs_prom_health *gs_prom_health_list(const struct gs_prom_health_run *r, uint32_t *n)
{
    *n = (uint32_t)r->n;
    return r->v;
}
