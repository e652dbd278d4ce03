/* SPDX-License-Identifier: MIT */
/*
 * nvml_gpm.c - profiling metrics through NVML's GPU Performance Monitoring
 * (Hopper and later): dcgm-exporter's DCGM_FI_PROF_* fields, computed as DCGM
 * computes them when it uses GPM (DcgmGpmManager: nvmlGpmSampleGet twice,
 * nvmlGpmMetricsGet over the interval; percentages / 100, MiB/s * 1048576).
 *
 * Two sample buffers per GPU (and per MIG GPU instance, with
 * nvmlGpmMigSampleGet) live from one tick to the next: each tick takes one
 * sample into the older buffer and computes every wanted metric between it
 * and the previous one, in one nvmlGpmMetricsGet. The first tick has no
 * interval: "not available", never 0. A tick within the driver's 100 ms
 * refresh period of the previous sample (NaN metrics) keeps the previous
 * values and baseline.
 * A GPU that is not supported (nvmlGpmQueryDeviceSupport) is asked once.
 */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backend/nvidia/nvml_priv.h"
#include "lib/clock.h"

/* NVML's metric for each enum gs_prof, and whether NVML gives a percentage. */
static const struct {
    unsigned id;
    bool pct;
} nvml_gpm_metric[GS_PROF_COUNT] = {
    [GS_PROF_GR_ENGINE] = { NVML_GPM_METRIC_GRAPHICS_UTIL, true },
    [GS_PROF_SM_ACTIVE] = { NVML_GPM_METRIC_SM_UTIL, true },
    [GS_PROF_SM_OCCUPANCY] = { NVML_GPM_METRIC_SM_OCCUPANCY, true },
    [GS_PROF_TENSOR] = { NVML_GPM_METRIC_ANY_TENSOR_UTIL, true },
    [GS_PROF_DRAM] = { NVML_GPM_METRIC_DRAM_BW_UTIL, true },
    [GS_PROF_FP64] = { NVML_GPM_METRIC_FP64_UTIL, true },
    [GS_PROF_FP32] = { NVML_GPM_METRIC_FP32_UTIL, true },
    [GS_PROF_FP16] = { NVML_GPM_METRIC_FP16_UTIL, true },
    [GS_PROF_PCIE_TX] = { NVML_GPM_METRIC_PCIE_TX_PER_SEC, false },
    [GS_PROF_PCIE_RX] = { NVML_GPM_METRIC_PCIE_RX_PER_SEC, false },
    [GS_PROF_NVLINK_TX] = { NVML_GPM_METRIC_NVLINK_TOTAL_TX_PER_SEC, false },
    [GS_PROF_NVLINK_RX] = { NVML_GPM_METRIC_NVLINK_TOTAL_RX_PER_SEC, false },
};

/* Two samples of one GPU or GPU instance, and the metrics last computed from them. */
struct nvml_gpm_pair {
    nvmlGpmSample_t s[2];
    int cur;                      /* s[cur] holds the newest sample; -1: none yet */
    uint64_t taken_ns;            /* when s[cur] was taken */
    uint64_t interval_ns;         /* between the two samples behind v[] */
    uint32_t gi;                  /* GPU instance ID, UINT32_MAX for the whole GPU */
    double v[GS_PROF_COUNT];
    uint8_t st[GS_PROF_COUNT];    /* enum gs_status of v[] */
};

struct nvml_gpm {
    int8_t support;               /* -1 not asked yet, 0 no, 1 yes */
    struct nvml_gpm_pair dev;
    struct nvml_gpm_pair gi[GS_MAX_MIG];
    unsigned ngi;
};

struct gs_fmask gs_nvml_mig_gpm_missing(const struct nvml_fns *f)
{
    struct gs_fmask m = GS_FMASK_NONE;

    if (!f->gpm_support || !f->gpm_alloc || !f->gpm_free || !f->gpm_sample || !f->gpm_metrics)
        for (unsigned k = 0; k < GS_PROF_COUNT; k++)
            gs_fmask_set(&m, GS_F_PROF_FIRST + k);
    if (!f->mig_max_count || !f->mig_handle)
        gs_fmask_set(&m, GS_F_MIG_DEVICES);
    return m;
}

static void nvml_gpm_pair_free(const struct nvml_fns *f, struct nvml_gpm_pair *p)
{
    for (int i = 0; i < 2; i++)
        if (p->s[i] && f->gpm_free)
            f->gpm_free(p->s[i]);
    memset(p, 0, sizeof(*p));
}

static void nvml_gpm_pair_set(struct nvml_gpm_pair *p, enum gs_status st)
{
    for (unsigned k = 0; k < GS_PROF_COUNT; k++)
        p->st[k] = (uint8_t)st;
}

/* The request buffer: nvmlGpmMetricsGet_t is 13 KB with the newest header's array. */
static nvmlGpmMetricsGet_t *nvml_gpm_request(struct nvml_ctx *ctx)
{
    if (!ctx->gpm_get)
        ctx->gpm_get = calloc(1, sizeof(*ctx->gpm_get));
    return ctx->gpm_get;
}

/* Metrics `which` (enum gs_prof bits) between samples s[prev] and s[next] into v/st;
 * false when no metric has a value (the two samples fall in one refresh period: NaN). */
static bool nvml_gpm_compute(struct nvml_device *d, struct gs_gpu *g, struct nvml_gpm_pair *p, int prev,
                             int next, unsigned which, double *v, uint8_t *st)
{
    nvmlGpmMetricsGet_t *mg = nvml_gpm_request(d->ctx);
    unsigned n = 0, ks[GS_PROF_COUNT];
    bool any = false, nan = false;

    if (!mg) {
        for (unsigned k = 0; k < GS_PROF_COUNT; k++)
            st[k] = GS_ST_ERROR;
        return true;
    }
    mg->version = NVML_GPM_METRICS_GET_VERSION;
    mg->sample1 = p->s[prev];
    mg->sample2 = p->s[next];
    for (unsigned k = 0; k < GS_PROF_COUNT; k++)
        if (which & (1u << k)) {
            memset(&mg->metrics[n], 0, sizeof(mg->metrics[n]));
            mg->metrics[n].metricId = nvml_gpm_metric[k].id;
            ks[n++] = k;
        }
    mg->numMetrics = n;
    nvmlReturn_t r = d->ctx->lib.f.gpm_metrics(mg);
    for (unsigned k = 0; k < GS_PROF_COUNT; k++)
        st[k] = p->st[k], v[k] = p->v[k];
    for (unsigned i = 0; i < n; i++) {
        unsigned k = ks[i];
        nvmlReturn_t mr = r == NVML_SUCCESS ? mg->metrics[i].nvmlReturn : r;
        /* a metric the GPU does not have is never asked again (for the whole GPU) */
        struct gs_fmask f = p->gi == UINT32_MAX ? gs_fmask_of(GS_F_PROF_FIRST + k) : GS_FMASK_NONE;
        enum gs_status s1 = gs_nvml_status(d, g, mr, f, "GPM metrics");
        double x = mg->metrics[i].value;
        if (s1 == GS_ST_OK && !isfinite(x)) {
            s1 = GS_ST_NOT_AVAILABLE; /* NaN: DCGM's "blank" */
            nan = true;
        }
        any |= s1 != GS_ST_NOT_AVAILABLE;
        st[k] = (uint8_t)s1;
        v[k] = s1 != GS_ST_OK ? 0 : nvml_gpm_metric[k].pct ? x / 100.0 : x * 1048576.0;
    }
    return any || !nan;
}

/* One tick of a pair: a new sample, then the metrics since the previous one. When the two
 * fall in one of the driver's refresh periods (NaN everywhere: a tick under ~100 ms after the
 * last), the new sample is dropped and the previous values stay: the next tick spans both. */
static void nvml_gpm_tick(struct nvml_device *d, struct gs_gpu *g, struct nvml_gpm_pair *p, unsigned which)
{
    const struct nvml_fns *f = &d->ctx->lib.f;
    uint64_t now = gs_clock_mono_ns();
    nvmlReturn_t r = NVML_SUCCESS;
    double v[GS_PROF_COUNT];
    uint8_t st[GS_PROF_COUNT];

    for (int i = 0; i < 2 && r == NVML_SUCCESS; i++)
        if (!p->s[i] && (r = f->gpm_alloc(&p->s[i])) != NVML_SUCCESS)
            p->s[i] = NULL;
    if (r != NVML_SUCCESS) {
        nvml_gpm_pair_set(p, gs_nvml_status(d, g, r, GS_FMASK_NONE, "GPM sample buffer"));
        return;
    }
    int next = p->cur < 0 ? 0 : 1 - p->cur;
    if (p->gi == UINT32_MAX)
        r = f->gpm_sample(d->handle, p->s[next]);
    else
        r = f->gpm_mig_sample ? f->gpm_mig_sample(d->handle, p->gi, p->s[next]) : NVML_ERROR_FUNCTION_NOT_FOUND;
    if (r != NVML_SUCCESS) {
        struct gs_fmask all = GS_FMASK_NONE;
        for (unsigned k = 0; p->gi == UINT32_MAX && k < GS_PROF_COUNT; k++)
            gs_fmask_set(&all, GS_F_PROF_FIRST + k);
        nvml_gpm_pair_set(p, gs_nvml_status(d, g, r, all, "GPM sample"));
        return;
    }
    if (p->cur < 0) {
        nvml_gpm_pair_set(p, GS_ST_NOT_AVAILABLE); /* one sample is no interval */
    } else if (!nvml_gpm_compute(d, g, p, p->cur, next, which, v, st)) {
        return; /* no interval yet: keep the baseline and the values */
    } else {
        memcpy(p->v, v, sizeof(v));
        memcpy(p->st, st, sizeof(st));
        p->interval_ns = now - p->taken_ns;
    }
    p->cur = next;
    p->taken_ns = now;
}

/* Ask once whether the GPU has GPM; a no makes every profiling field "not supported". */
static bool nvml_gpm_supported(struct nvml_device *d, struct gs_gpu *g)
{
    struct nvml_gpm *gp = d->gpm;

    if (gp->support < 0) {
        nvmlGpmSupport_t sup = { NVML_GPM_SUPPORT_VERSION, 0 };
        nvmlReturn_t r = d->ctx->lib.f.gpm_support(d->handle, &sup);
        if (r == NVML_SUCCESS && !sup.isSupportedDevice)
            r = NVML_ERROR_NOT_SUPPORTED;
        if (r == NVML_ERROR_NOT_SUPPORTED || r == NVML_ERROR_FUNCTION_NOT_FOUND) {
            struct gs_fmask all = GS_FMASK_NONE;
            for (unsigned k = 0; k < GS_PROF_COUNT; k++)
                gs_fmask_set(&all, GS_F_PROF_FIRST + k);
            gs_nvml_status(d, g, NVML_ERROR_NOT_SUPPORTED, all, "GPM support");
            gp->support = 0;
        } else if (r == NVML_SUCCESS) {
            gp->support = 1;
        } else {
            gs_nvml_status(d, g, r, GS_FMASK_NONE, "GPM support"); /* asked again next tick */
        }
    }
    return gp->support == 1;
}

/* The GPU instances of this tick's MIG devices, each with its pair (kept across ticks). */
static void nvml_gpm_instances(struct nvml_device *d, const struct gs_gpu *g)
{
    struct nvml_gpm *gp = d->gpm;
    uint32_t firsts[GS_MAX_MIG];
    unsigned n = g->s.status[GS_F_MIG_DEVICES] == GS_ST_OK ? gs_gpu_gpu_instances(g, firsts) : 0;
    bool same = n == gp->ngi;

    for (unsigned i = 0; same && i < n; i++)
        same = gp->gi[i].gi == g->mig[firsts[i]].gpu_instance_id;
    if (same)
        return;
    for (unsigned i = 0; i < gp->ngi; i++)
        nvml_gpm_pair_free(&d->ctx->lib.f, &gp->gi[i]);
    for (unsigned i = 0; i < n; i++) {
        gp->gi[i].cur = -1;
        gp->gi[i].gi = g->mig[firsts[i]].gpu_instance_id;
    }
    gp->ngi = n;
}

/* The GPU instances' activity onto their MIG devices (PCIe and NVLink are the GPU's only). */
static void nvml_gpm_to_migs(struct nvml_device *d, struct gs_gpu *g, unsigned which)
{
    struct nvml_gpm *gp = d->gpm;

    for (unsigned i = 0; i < gp->ngi; i++)
        nvml_gpm_tick(d, g, &gp->gi[i], which & ((1u << GS_PROF_FIRST_RATE) - 1));
    for (uint32_t m = 0; m < g->nmig; m++) {
        struct gs_mig *mi = &g->mig[m];
        for (unsigned k = 0; k < GS_PROF_COUNT; k++)
            mi->prof_status[k] = k >= GS_PROF_FIRST_RATE ? GS_ST_NOT_SUPPORTED : GS_ST_NOT_SAMPLED;
        for (unsigned i = 0; i < gp->ngi; i++) {
            if (gp->gi[i].gi != mi->gpu_instance_id)
                continue;
            for (unsigned k = 0; k < GS_PROF_FIRST_RATE; k++) {
                mi->prof_status[k] = (which & (1u << k)) ? gp->gi[i].st[k] : GS_ST_NOT_SAMPLED;
                mi->prof[k] = gp->gi[i].v[k];
            }
        }
    }
}

void gs_nvml_gpm_read(struct nvml_device *d, struct gs_gpu *g, struct gs_fmask want, bool *error)
{
    struct gs_fmask unsup = gs_nvml_unsup(d);
    unsigned which = 0, gi_which = 0;

    for (unsigned k = 0; k < GS_PROF_COUNT; k++) {
        bool w = gs_fmask_has(want, GS_F_PROF_FIRST + k);
        gi_which |= w ? 1u << k : 0;
        which |= w && !gs_fmask_has(unsup, GS_F_PROF_FIRST + k) ? 1u << k : 0;
    }
    if (!gi_which || gs_fmask_any(gs_fmask_and(gs_nvml_mig_gpm_missing(&d->ctx->lib.f), gs_fmask_of(GS_F_PROF_FIRST))))
        return; /* not wanted, or the library has no GPM: the statuses say so */
    if (!d->gpm) {
        if (!(d->gpm = calloc(1, sizeof(*d->gpm)))) {
            *error = true;
            return;
        }
        d->gpm->support = -1;
        d->gpm->dev.cur = -1;
        d->gpm->dev.gi = UINT32_MAX;
    }
    if (!nvml_gpm_supported(d, g))
        return; /* the statuses say "not supported" (or the error) */
    if (which) {
        nvml_gpm_tick(d, g, &d->gpm->dev, which);
        for (unsigned k = 0; k < GS_PROF_COUNT; k++)
            if (which & (1u << k)) {
                gs_sample_mark(&g->s, GS_F_PROF_FIRST + k, d->gpm->dev.st[k]);
                g->s.prof[k] = d->gpm->dev.v[k];
                *error |= d->gpm->dev.st[k] == GS_ST_ERROR;
            }
        g->s.prof_interval_ns = d->gpm->dev.interval_ns;
    }
    nvml_gpm_instances(d, g);
    nvml_gpm_to_migs(d, g, gi_which);
}

bool gs_nvml_gpm_probe(struct nvml_device *d)
{
    nvmlGpmSupport_t sup = { NVML_GPM_SUPPORT_VERSION, 0 };

    if (d->gpm && d->gpm->support >= 0)
        return d->gpm->support == 1;
    return d->ctx->lib.f.gpm_support(d->handle, &sup) == NVML_SUCCESS && sup.isSupportedDevice;
}

/* GPM's PCIe metrics (bytes/s) as the sample's KB/s fields (1000 bytes, as the simulator and
 * nvmlDeviceGetPcieThroughput count them), after gs_nvml_gpm_read asked for them; values
 * held across a refresh period of the driver carry their age. */
void gs_nvml_gpm_pcie(struct nvml_device *d, struct gs_gpu *g, struct gs_fmask want)
{
    static const struct { enum gs_field f; unsigned k; size_t off; } dir[2] = {
        { GS_F_PCIE_TX, GS_PROF_PCIE_TX, offsetof(struct gs_sample, pcie_tx_kbps) },
        { GS_F_PCIE_RX, GS_PROF_PCIE_RX, offsetof(struct gs_sample, pcie_rx_kbps) },
    };
    struct gs_fmask unsup = gs_nvml_unsup(d);
    uint64_t now = gs_clock_mono_ns();

    for (int i = 0; i < 2; i++) {
        if (!gs_fmask_has(want, dir[i].f))
            continue;
        enum gs_status st = !d->gpm || gs_fmask_has(unsup, GS_F_PROF_FIRST + dir[i].k)
                                ? GS_ST_NOT_SUPPORTED
                                : (enum gs_status)g->s.status[GS_F_PROF_FIRST + dir[i].k];
        gs_sample_mark(&g->s, dir[i].f, st);
        if (st != GS_ST_OK)
            continue;
        double kbps = g->s.prof[dir[i].k] / 1000.0 + 0.5;
        uint32_t v = kbps >= (double)UINT32_MAX ? UINT32_MAX : kbps > 0 ? (uint32_t)kbps : 0;
        memcpy((char *)&g->s + dir[i].off, &v, sizeof(v));
        uint64_t age = now > d->gpm->dev.taken_ns ? now - d->gpm->dev.taken_ns : 0;
        g->s.age_ms[dir[i].f] = (uint32_t)(age / 1000000u);
        g->s.pcie_rate_age_ns = age;
    }
}

void gs_nvml_gpm_free(struct nvml_device *d)
{
    if (!d->gpm)
        return;
    nvml_gpm_pair_free(&d->ctx->lib.f, &d->gpm->dev);
    for (unsigned i = 0; i < d->gpm->ngi; i++)
        nvml_gpm_pair_free(&d->ctx->lib.f, &d->gpm->gi[i]);
    free(d->gpm);
    d->gpm = NULL;
}
