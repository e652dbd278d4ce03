/* SPDX-License-Identifier: MIT */
/*
 * prom_backend.c - the fleet as one more backend (struct gs_backend): every
 * GPU that a Prometheus (or VictoriaMetrics, Thanos, Mimir) holds series of,
 * from `gpuscope serve` or NVIDIA's dcgm-exporter, read with their DCGM_FI_*
 * names and labels (Hostname or hostname, gpu, UUID, modelName, pci_bus_id;
 * instance stands in for a missing host name). The commands use it through
 * the sampler as they use NVML, so they need no fleet code of their own.
 *
 *   1. the metrics read, and where each goes in the model
 *   2. one refresh: two instant queries for the whole fleet, whatever its
 *      size (the values, then the time of each GPU's newest reading)
 *   3. devices: discovered once, matched by node and GPU index at every
 *      refresh; one without series (its node stopped, or left) is lost, not
 *      dropped; one whose newest reading is more than the staleness bound
 *      (3 scrape intervals, at least 15 s) behind the fleet's newest is lost
 *      too (never a stale value shown as fresh); the others' readings carry
 *      their age
 *   4. the backend table (exported as gs_prom_backend)
 */
#include "backend/prom/prom_priv.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/backend.h"
#include "core/utf8.h"
#include "lib/clock.h"

/* ---- 1. the metrics ----------------------------------------------------------------------- */

enum pb_kind { PB_U32, PB_U64, PB_I32 };

struct pb_metric {
    const char *name;  /* the DCGM field name (dcgm-exporter's default and opt-in counters) */
    int field;         /* GS_F_* (sample) or GS_S_* (static, when st) */
    bool st;
    double scale;      /* value * scale = the model's unit */
    size_t off;        /* where in struct gs_sample / gs_static */
    enum pb_kind kind;
};

#define SM(n, f, sc, m, k) { "DCGM_FI_DEV_" n, f, false, sc, offsetof(struct gs_sample, m), k }
#define ST(n, f, sc, m, k) { "DCGM_FI_DEV_" n, f, true, sc, offsetof(struct gs_static, m), k }
#define MIB 1048576.0
static const struct pb_metric pb_metrics[] = {
    SM("GPU_UTIL", GS_F_GPU_UTIL, 1, gpu_util_pct, PB_U32),
    SM("MEM_COPY_UTIL", GS_F_MEM_UTIL, 1, mem_util_pct, PB_U32),
    SM("ENC_UTIL", GS_F_ENC_UTIL, 1, enc_util_pct, PB_U32),
    SM("DEC_UTIL", GS_F_DEC_UTIL, 1, dec_util_pct, PB_U32),
    SM("FB_USED", GS_F_MEM_USED, MIB, mem_used_bytes, PB_U64),
    SM("FB_FREE", GS_F_MEM_FREE, MIB, mem_free_bytes, PB_U64),
    SM("FB_RESERVED", GS_F_MEM_RESERVED, MIB, mem_reserved_bytes, PB_U64),
    SM("FB_TOTAL", GS_F_MEM_TOTAL, MIB, mem_total_bytes, PB_U64),
    SM("GPU_TEMP", GS_F_TEMP_GPU, 1, temp_gpu_c, PB_I32),
    SM("MEMORY_TEMP", GS_F_TEMP_MEM, 1, temp_mem_c, PB_I32),
    SM("POWER_USAGE", GS_F_POWER, 1000, power_mw, PB_U32),
    SM("POWER_MGMT_LIMIT", GS_F_POWER_LIMIT, 1000, power_limit_mw, PB_U32),
    SM("ENFORCED_POWER_LIMIT", GS_F_POWER_ENFORCED, 1000, power_enforced_limit_mw, PB_U32),
    SM("TOTAL_ENERGY_CONSUMPTION", GS_F_ENERGY, 1, energy_mj, PB_U64),
    SM("SM_CLOCK", GS_F_CLOCK_SM, 1, clock_sm_mhz, PB_U32),
    SM("MEM_CLOCK", GS_F_CLOCK_MEM, 1, clock_mem_mhz, PB_U32),
    SM("VIDEO_CLOCK", GS_F_CLOCK_VIDEO, 1, clock_video_mhz, PB_U32),
    SM("PSTATE", GS_F_PSTATE, 1, pstate, PB_U32),
    SM("CLOCKS_EVENT_REASONS", GS_F_THROTTLE, 1, throttle_reasons, PB_U64),
    SM("CLOCK_THROTTLE_REASONS", GS_F_THROTTLE, 1, throttle_reasons, PB_U64),
    SM("PCIE_LINK_GEN", GS_F_PCIE_GEN, 1, pcie_gen, PB_U32),
    SM("PCIE_LINK_WIDTH", GS_F_PCIE_WIDTH, 1, pcie_width, PB_U32),
    SM("PCIE_REPLAY_COUNTER", GS_F_PCIE_REPLAY, 1, pcie_replay_count, PB_U32),
    SM("ECC_SBE_VOL_TOTAL", GS_F_ECC_VOL_CORR, 1, ecc_vol_corrected, PB_U64),
    SM("ECC_DBE_VOL_TOTAL", GS_F_ECC_VOL_UNCORR, 1, ecc_vol_uncorrected, PB_U64),
    SM("ECC_SBE_AGG_TOTAL", GS_F_ECC_AGG_CORR, 1, ecc_agg_corrected, PB_U64),
    SM("ECC_DBE_AGG_TOTAL", GS_F_ECC_AGG_UNCORR, 1, ecc_agg_uncorrected, PB_U64),
    SM("RETIRED_SBE", GS_F_RETIRED_SBE, 1, retired_sbe_pages, PB_U32),
    SM("RETIRED_DBE", GS_F_RETIRED_DBE, 1, retired_dbe_pages, PB_U32),
    SM("RETIRED_PENDING", GS_F_RETIRED_PENDING, 1, retired_pending, PB_U32),
    SM("CORRECTABLE_REMAPPED_ROWS", GS_F_REMAP_CORR, 1, remap_corr_rows, PB_U32),
    SM("UNCORRECTABLE_REMAPPED_ROWS", GS_F_REMAP_UNCORR, 1, remap_uncorr_rows, PB_U32),
    SM("ROW_REMAP_PENDING", GS_F_REMAP_PENDING, 1, remap_pending, PB_U32),
    SM("ROW_REMAP_FAILURE", GS_F_REMAP_FAILED, 1, remap_failed, PB_U32),
    ST("SLOWDOWN_TEMP", GS_S_TEMP_SLOWDOWN, 1, temp_slowdown_c, PB_I32),
    ST("SHUTDOWN_TEMP", GS_S_TEMP_SHUTDOWN, 1, temp_shutdown_c, PB_I32),
    ST("GPU_MAX_OP_TEMP", GS_S_TEMP_GPU_MAX, 1, temp_gpu_max_c, PB_I32),
    ST("MEM_MAX_OP_TEMP", GS_S_TEMP_MEM_MAX, 1, temp_mem_max_c, PB_I32),
    ST("POWER_MGMT_LIMIT_DEF", GS_S_POWER_DEFAULT, 1000, power_default_limit_mw, PB_U32),
    ST("MAX_SM_CLOCK", GS_S_CLOCK_MAX_SM, 1, clock_max_sm_mhz, PB_U32),
    ST("MAX_MEM_CLOCK", GS_S_CLOCK_MAX_MEM, 1, clock_max_mem_mhz, PB_U32),
    ST("MAX_VIDEO_CLOCK", GS_S_CLOCK_MAX_VIDEO, 1, clock_max_video_mhz, PB_U32),
    ST("PCIE_MAX_LINK_GEN", GS_S_PCIE_MAX_GEN, 1, pcie_max_gen, PB_U32),
    ST("PCIE_MAX_LINK_WIDTH", GS_S_PCIE_MAX_WIDTH, 1, pcie_max_width, PB_U32),
};
#undef SM
#undef ST
#define PB_N (sizeof(pb_metrics) / sizeof(pb_metrics[0]))
_Static_assert(sizeof(pb_metrics) / sizeof(pb_metrics[0]) <= 64, "pb_dev.have holds a bit per metric");
#define PB_KEY 257            /* a label value as the parser bounds it, NUL included */
#define PB_MIN_STALE_S 15.0   /* the staleness bound: 3 scrape intervals, at least this */
#define PB_MAX_AGE_S 600.0    /* older than this, a reading is stale whatever the rest */
#define PB_REUSE_NS 500000000 /* a refresh younger than this serves the next tick too */

/* One GPU of the fleet. */
struct pb_dev {
    struct gs_bdev b;            /* b.index: its place in the fleet (host, then gpu order) */
    struct gs_bctx *ctx;         /* the refresh it reads from */
    char host[PB_KEY];           /* Hostname / hostname label, else instance */
    char uuid[PB_KEY], model[PB_KEY], pci[PB_KEY];
    uint32_t gpu;                /* the gpu label: its index on the node */
    double v[PB_N];              /* the latest values, NaN: none */
    uint64_t have;               /* bit k: metric k had a series (its value may be NaN) */
    double ts;                   /* time of its newest reading, 0: none in the latest refresh */
    bool seen;                   /* it had series in the latest refresh */
    int64_t lost_since;          /* wall seconds it was first missing, 0 while present */
};

struct gs_bctx {
    struct gs_prom *p;
    char sel[PB_N * 40 + 800];   /* {__name__=~"DCGM_FI_DEV_GPU_UTIL|...",GPU_I_ID="",--match} */
    char base[800];              /* {GPU_I_ID="",--match} */
    struct pb_dev *dev;          /* ndev, sorted */
    struct gs_bdev **devp;       /* ndev pointers into dev, for discover */
    uint32_t ndev;
    double at;                   /* evaluation time of the latest refresh (Unix seconds) */
    double newest;               /* the newest reading of the whole fleet in it (0: none) */
    double stale_s;
    uint64_t refreshed_ns;       /* monotonic time of the latest refresh, 0: none */
    int refresh_rc;              /* its result */
    struct gs_err refresh_err;   /* why it failed */
    uint32_t skipped;            /* series without the labels to place them */
    uint32_t unknown;            /* GPUs that appeared after discovery (not shown) */
    char warning[200];
};

static uint32_t pb_metric_index(const char *name)
{
    for (uint32_t i = 0; name && i < PB_N; i++)
        if (!strcmp(pb_metrics[i].name, name))
            return i;
    return UINT32_MAX;
}

/* ---- 2. one refresh ----------------------------------------------------------------------- */

/* The node of a series: its host name label, else its scrape target. */
static const char *pb_host(const struct gs_prom_series *s)
{
    const char *h = gs_prom_label(s, "Hostname");
    if (!h || !h[0])
        h = gs_prom_label(s, "hostname");
    if (!h || !h[0])
        h = gs_prom_label(s, "instance");
    return h && h[0] ? h : NULL;
}

/* The gpu label as an index, or -1 when absent or not a number. */
static long pb_gpu(const struct gs_prom_series *s)
{
    const char *g = gs_prom_label(s, "gpu");
    char *end;
    long n = g && *g ? strtol(g, &end, 10) : -1;
    return g && *g && !*end && n >= 0 && n < 65536 ? n : -1;
}

/* The two queries of a refresh. Grouping keeps only the labels that place a
 * reading (max: two Prometheus replicas behind one URL give one value), and
 * GPU_I_ID="" leaves out dcgm-exporter's per-MIG-instance series. */
#define PB_BY "Hostname,hostname,instance,gpu,UUID"
static int pb_fetch(struct gs_bctx *c, struct gs_prom_result *vals, struct gs_prom_result *ts, struct gs_err *err)
{
    char q[sizeof(c->sel) + 3 * sizeof(c->base) + 256];
    struct timespec now;

    clock_gettime(CLOCK_REALTIME, &now);
    c->at = (double)now.tv_sec + (double)(now.tv_nsec / 1000000) / 1e3;
    snprintf(q, sizeof(q), "max by (__name__," PB_BY ",modelName,pci_bus_id) (%s)", c->sel);
    int rc = gs_prom_query(c->p, q, c->at, vals, err);
    if (rc < 0)
        return rc;
    /* timestamp() drops the name: of one metric at a time, the first a GPU has */
    snprintf(q, sizeof(q),
             "max by (" PB_BY ") (timestamp(DCGM_FI_DEV_GPU_UTIL%s)) or max by (" PB_BY ") "
             "(timestamp(DCGM_FI_DEV_FB_USED%s)) or max by (" PB_BY ") (timestamp(DCGM_FI_DEV_GPU_TEMP%s))",
             c->base, c->base, c->base);
    if ((rc = gs_prom_query(c->p, q, c->at, ts, err)) < 0)
        gs_prom_result_free(vals);
    return rc;
}

static struct pb_dev *pb_find(struct gs_bctx *c, const char *host, long gpu)
{
    for (uint32_t i = 0; i < c->ndev; i++)
        if (c->dev[i].gpu == (uint32_t)gpu && !strcmp(c->dev[i].host, host))
            return &c->dev[i];
    return NULL;
}

/* Values and times of the latest refresh into the known devices. */
static void pb_apply(struct gs_bctx *c, const struct gs_prom_result *vals, const struct gs_prom_result *ts)
{
    c->skipped = c->unknown = 0;
    for (uint32_t i = 0; i < c->ndev; i++) {
        c->dev[i].seen = false;
        c->dev[i].ts = 0;
        c->dev[i].have = 0;
        for (uint32_t k = 0; k < PB_N; k++)
            c->dev[i].v[k] = NAN;
    }
    for (size_t i = 0; i < vals->n; i++) {
        const struct gs_prom_series *s = &vals->s[i];
        const char *host = pb_host(s);
        long gpu = pb_gpu(s);
        uint32_t k = pb_metric_index(gs_prom_label(s, "__name__"));
        struct pb_dev *d = host && gpu >= 0 ? pb_find(c, host, gpu) : NULL;
        if (!host || gpu < 0) {
            c->skipped++;
            continue;
        }
        if (!d) {
            c->unknown++;
            continue;
        }
        d->seen = true;
        if (k != UINT32_MAX && s->npoints) {
            d->v[k] = s->v[0];
            d->have |= UINT64_C(1) << k;
        }
    }
    c->newest = 0;
    for (size_t i = 0; i < ts->n; i++) {
        const struct gs_prom_series *s = &ts->s[i];
        if (s->npoints && isfinite(s->v[0]) && s->v[0] > c->newest)
            c->newest = s->v[0];
        const char *host = pb_host(s);
        long gpu = pb_gpu(s);
        struct pb_dev *d = host && gpu >= 0 ? pb_find(c, host, gpu) : NULL;
        if (d && s->npoints && isfinite(s->v[0]) && s->v[0] > d->ts)
            d->ts = s->v[0];
    }
}

static void pb_note(struct gs_bctx *c)
{
    c->warning[0] = '\0';
    if (c->skipped)
        snprintf(c->warning, sizeof(c->warning),
                 "%u series without a gpu label or a host (Hostname, hostname or instance) were left out",
                 c->skipped);
    else if (c->unknown)
        snprintf(c->warning, sizeof(c->warning), "%u GPUs appeared after the start and are not shown: run again",
                 c->unknown);
}

/* A refresh for the tick at now_ns, unless one younger than PB_REUSE_NS serves. */
static int pb_refresh(struct gs_bctx *c, uint64_t now_ns)
{
    struct gs_prom_result vals, ts;

    if (c->refreshed_ns && now_ns - c->refreshed_ns < PB_REUSE_NS)
        return c->refresh_rc;
    gs_err_clear(&c->refresh_err);
    c->refreshed_ns = now_ns;
    c->refresh_rc = pb_fetch(c, &vals, &ts, &c->refresh_err);
    if (c->refresh_rc < 0)
        return c->refresh_rc;
    pb_apply(c, &vals, &ts);
    pb_note(c);
    gs_prom_result_free(&vals);
    gs_prom_result_free(&ts);
    return 0;
}

/* ---- 3. devices --------------------------------------------------------------------------- */

static int pb_dev_cmp(const void *a, const void *b)
{
    const struct pb_dev *x = a, *y = b;
    int h = strcmp(x->host, y->host);
    return h ? h : (x->gpu > y->gpu) - (x->gpu < y->gpu);
}

static void pb_copy(char *dst, const char *src)
{
    snprintf(dst, PB_KEY, "%s", src ? src : "");
}

/* The devices of the first refresh: one per (host, gpu) with any series. */
static int pb_collect(struct gs_bctx *c, const struct gs_prom_result *vals)
{
    c->dev = calloc(vals->n ? vals->n : 1, sizeof(*c->dev));
    if (!c->dev)
        return -GS_E_NOMEM;
    for (size_t i = 0; i < vals->n; i++) {
        const struct gs_prom_series *s = &vals->s[i];
        const char *host = pb_host(s);
        long gpu = pb_gpu(s);
        if (!host || gpu < 0 || pb_find(c, host, gpu))
            continue;
        struct pb_dev *d = &c->dev[c->ndev++];
        pb_copy(d->host, host);
        d->gpu = (uint32_t)gpu;
        pb_copy(d->uuid, gs_prom_label(s, "UUID"));
        pb_copy(d->model, gs_prom_label(s, "modelName"));
        pb_copy(d->pci, gs_prom_label(s, "pci_bus_id"));
    }
    qsort(c->dev, c->ndev, sizeof(*c->dev), pb_dev_cmp);
    c->devp = calloc(c->ndev ? c->ndev : 1, sizeof(*c->devp));
    if (!c->devp)
        return -GS_E_NOMEM;
    for (uint32_t i = 0; i < c->ndev; i++) {
        c->dev[i].b.index = i;
        c->dev[i].ctx = c;
        c->devp[i] = &c->dev[i].b;
    }
    return 0;
}

static int pb_no_gpus(struct gs_bctx *c, struct gs_err *err)
{
    const char *m = gs_prom_matchers(c->p);
    gs_err_set(err, GS_E_NO_DEVICE, "no GPU series at %s%s%s%s: none of DCGM_FI_DEV_GPU_UTIL, DCGM_FI_DEV_FB_USED "
               "and the other DCGM_FI_DEV_* series of gpuscope serve or dcgm-exporter%s",
               gs_prom_url(c->p), m[0] ? " matching {" : "", m, m[0] ? "}" : "",
               c->skipped ? " with a gpu label and a host" : "");
    gs_err_hint(err, "scrape `gpuscope serve` or dcgm-exporter on every node from this server (a scrape job "
                     "with the nodes' :9400 targets), or widen --match; docs/FLEET.md");
    return -GS_E_NO_DEVICE;
}

static int pb_discover(struct gs_bctx *c, struct gs_bdev *const **devs, uint32_t *ndevs, struct gs_err *err)
{
    struct gs_prom_result vals, ts;
    int rc;

    if (!c->devp) {
        if ((rc = pb_fetch(c, &vals, &ts, err)) < 0)
            return rc;
        rc = pb_collect(c, &vals);
        if (rc == 0) {
            pb_apply(c, &vals, &ts);
            pb_note(c);
            c->refreshed_ns = gs_clock_mono_ns();
        }
        gs_prom_result_free(&vals);
        gs_prom_result_free(&ts);
        if (rc < 0)
            return gs_err_set(err, GS_E_NOMEM, "out of memory listing the fleet's GPUs");
    }
    if (c->ndev == 0)
        return pb_no_gpus(c, err);
    *devs = c->devp;
    *ndevs = c->ndev;
    return 0;
}

/* DCGM's "blank" values (no reading: DCGM_INT32_BLANK, DCGM_INT64_BLANK, DCGM_FP64_BLANK and
 * above), which dcgm-exporter prints as numbers, such as 9223372036854775794 for a memory
 * temperature the board does not have. */
static bool pb_blank(const struct pb_metric *m, double v)
{
    if (v >= 140737488355328.0)
        return true;
    return m->kind != PB_U64 && v >= 2147483632.0 && v <= 2147483647.0;
}

static void pb_put(void *base, const struct pb_metric *m, double v)
{
    char *at = (char *)base + m->off;
    double x = v * m->scale;
    if (m->kind == PB_U32) {
        uint32_t u = x <= 0 ? 0 : x >= 4294967295.0 ? UINT32_MAX : (uint32_t)llround(x);
        memcpy(at, &u, sizeof(u));
    } else if (m->kind == PB_U64) {
        uint64_t u = x <= 0 ? 0 : x >= 1.8e19 ? UINT64_MAX : (uint64_t)llround(x);
        memcpy(at, &u, sizeof(u));
    } else {
        int32_t i = x <= -2147483648.0 ? INT32_MIN : x >= 2147483647.0 ? INT32_MAX : (int32_t)lround(x);
        memcpy(at, &i, sizeof(i));
    }
}

static int pb_read_static(struct gs_bdev *b, struct gs_gpu *gpu)
{
    struct pb_dev *d = container_of(b, struct pb_dev, b);
    struct gs_static *st = &gpu->st;

    memset(st, 0, sizeof(*st));
    st->index = b->index;
    gs_utf8_repair(st->host, sizeof(st->host), d->host);
    st->host_index = d->gpu;
    gs_static_mark(st, GS_S_HOST, GS_ST_OK);
    gs_utf8_repair(st->name, sizeof(st->name), d->model);
    gs_static_mark(st, GS_S_NAME, d->model[0] ? GS_ST_OK : GS_ST_NOT_AVAILABLE);
    gs_utf8_repair(st->uuid, sizeof(st->uuid), d->uuid);
    gs_static_mark(st, GS_S_UUID, d->uuid[0] ? GS_ST_OK : GS_ST_NOT_AVAILABLE);
    /* pci_bus_id is known, but GS_S_PCI also vouches for device and subsystem ids
     * that no series carries: the bus id stays in the model unmarked (never a 0 shown as a value) */
    gs_utf8_repair(st->pci_bus_id, sizeof(st->pci_bus_id), d->pci);
    for (uint32_t k = 0; k < PB_N; k++) {
        const struct pb_metric *m = &pb_metrics[k];
        if (!m->st || !isfinite(d->v[k]) || pb_blank(m, d->v[k]))
            continue;
        pb_put(st, m, d->v[k]);
        gs_static_mark(st, (enum gs_sfield)m->field, GS_ST_OK);
    }
    return 0;
}

/* Every field marked st; a GPU without series this refresh is lost. */
static int pb_mark_all(struct gs_gpu *gpu, struct gs_fmask want, enum gs_status st)
{
    for (int f = 0; f < GS_F_COUNT; f++)
        gs_sample_mark(&gpu->s, (enum gs_field)f, gs_fmask_has(want, (enum gs_field)f) ? st : GS_ST_NOT_SAMPLED);
    return 0;
}

static int pb_sample_missing(struct gs_bctx *c, struct pb_dev *d, struct gs_fmask want, struct gs_gpu *gpu)
{
    if (c->refresh_rc < 0) { /* the server did not answer: no readings, not a lost GPU */
        pb_mark_all(gpu, want, GS_ST_ERROR);
        gpu->state = GS_GPU_ERROR;
        snprintf(gpu->last_error, sizeof(gpu->last_error), "%.159s", c->refresh_err.msg);
        return -GS_E_BACKEND;
    }
    if (!d->lost_since)
        d->lost_since = (int64_t)c->at;
    pb_mark_all(gpu, want, GS_ST_GPU_LOST);
    gpu->state = GS_GPU_LOST;
    gpu->lost_since = d->lost_since;
    if (d->seen)
        snprintf(gpu->last_error, sizeof(gpu->last_error),
                 "no reading from %.64s for %.0f s, %.0f s behind the rest of the fleet (the bound is %.0f s)",
                 d->host, c->at - d->ts, c->newest - d->ts, c->stale_s);
    else
        snprintf(gpu->last_error, sizeof(gpu->last_error),
                 "no series from %.64s GPU %u since %.0f s (its exporter stopped, or the node left)", d->host,
                 d->gpu, c->at - (double)d->lost_since);
    return -GS_E_GPU_LOST;
}

static int pb_sample(struct gs_bdev *b, struct gs_fmask want, struct gs_gpu *gpu)
{
    struct pb_dev *d = container_of(b, struct pb_dev, b);
    struct gs_bctx *c = d->ctx;
    double age = d->ts > 0 ? c->at - d->ts : 0;
    /* Stale: behind the fleet's newest reading by more than the bound. Against the
     * newest, not the clock: VictoriaMetrics shows data 30 s late (-search.latencyOffset),
     * so every reading there is 30 s old and none is behind. */
    bool stale = d->ts > 0 && (c->newest - d->ts > c->stale_s || age > PB_MAX_AGE_S);

    memset(&gpu->s, 0, offsetof(struct gs_sample, age_ms));
    memset(gpu->s.age_ms, 0, sizeof(gpu->s.age_ms));
    gpu->s.timestamp_ns = (uint64_t)(c->at * 1e9);
    gpu->last_error[0] = '\0';
    if (c->refresh_rc < 0 || !d->seen || stale)
        return pb_sample_missing(c, d, want, gpu);
    d->lost_since = 0;
    gpu->state = GS_GPU_OK;
    gpu->lost_since = 0;
    pb_mark_all(gpu, want, GS_ST_NOT_SUPPORTED);
    for (uint32_t k = 0; k < PB_N; k++) {
        const struct pb_metric *m = &pb_metrics[k];
        enum gs_field f = (enum gs_field)m->field;
        if (m->st || !gs_fmask_has(want, f) || gs_sample_has(&gpu->s, f))
            continue;
        if (isnan(d->v[k]) || pb_blank(m, d->v[k])) { /* never a 0: no series is "not supported", */
            if (d->have & (UINT64_C(1) << k))       /* a NaN sample or DCGM's blank "no value now" */
                gs_sample_mark(&gpu->s, f, GS_ST_NOT_AVAILABLE);
            continue;
        }
        pb_put(&gpu->s, m, d->v[k]);
        gs_sample_mark(&gpu->s, f, GS_ST_OK);
        gpu->s.age_ms[f] = age > 0 ? (uint32_t)(age * 1000) : 0;
    }
    /* dcgm-exporter has no FB_TOTAL by default: used + free (+ reserved), as NVML's total */
    if (gs_fmask_has(want, GS_F_MEM_TOTAL) && !gs_sample_has(&gpu->s, GS_F_MEM_TOTAL) &&
        gs_sample_has(&gpu->s, GS_F_MEM_USED) && gs_sample_has(&gpu->s, GS_F_MEM_FREE)) {
        gpu->s.mem_total_bytes = gpu->s.mem_used_bytes + gpu->s.mem_free_bytes +
                                 (gs_sample_has(&gpu->s, GS_F_MEM_RESERVED) ? gpu->s.mem_reserved_bytes : 0);
        gs_sample_mark(&gpu->s, GS_F_MEM_TOTAL, GS_ST_OK);
        gpu->s.age_ms[GS_F_MEM_TOTAL] = gpu->s.age_ms[GS_F_MEM_USED];
    }
    return 0;
}

/* ---- 4. the table ------------------------------------------------------------------------- */

static void pb_fini(struct gs_bctx *c);

/* The selector of every query: the metrics, no MIG instance, --match. */
static int pb_selector(struct gs_bctx *c, struct gs_err *err)
{
    const char *m = gs_prom_matchers(c->p);
    size_t n = (size_t)snprintf(c->sel, sizeof(c->sel), "{__name__=~\"");
    for (uint32_t k = 0; k < PB_N && n < sizeof(c->sel); k++)
        n += (size_t)snprintf(c->sel + n, sizeof(c->sel) - n, "%s%s", k ? "|" : "", pb_metrics[k].name);
    if (n < sizeof(c->sel))
        n += (size_t)snprintf(c->sel + n, sizeof(c->sel) - n, "\",GPU_I_ID=\"\"%s%s}", m[0] ? "," : "", m);
    int b = snprintf(c->base, sizeof(c->base), "{GPU_I_ID=\"\"%s%s}", m[0] ? "," : "", m);
    if (n >= sizeof(c->sel) || b < 0 || (size_t)b >= sizeof(c->base))
        return gs_err_set(err, GS_E_USAGE, "--match is too long (at most 700 characters)");
    return 0;
}

static int pb_init(struct gs_bctx **out, const struct gs_backend_opts *opts, struct gs_err *err)
{
    struct gs_bctx *c = calloc(1, sizeof(*c));
    int rc;

    *out = NULL;
    if (!c)
        return gs_err_set(err, GS_E_NOMEM, "out of memory");
    if (!opts || !opts->arg) {
        free(c);
        return gs_err_set(err, GS_E_INTERNAL, "the fleet backend was started without --prometheus");
    }
    if ((rc = gs_prom_open(&c->p, opts->arg, err)) < 0) {
        free(c);
        return rc;
    }
    if ((rc = pb_selector(c, err)) < 0) {
        pb_fini(c);
        return rc;
    }
    double si = gs_prom_scrape_interval_s(c->p);
    c->stale_s = 3 * si > PB_MIN_STALE_S ? 3 * si : PB_MIN_STALE_S;
    *out = c;
    return 0;
}

static void pb_fini(struct gs_bctx *c)
{
    if (!c)
        return;
    gs_prom_close(c->p);
    free(c->dev);
    free(c->devp);
    free(c);
}

static void pb_system_info(struct gs_bctx *c, struct gs_sysinfo *out)
{
    snprintf(out->backend, sizeof(out->backend), "prometheus");
    snprintf(out->warning, sizeof(out->warning), "%s", c->warning);
}

static void pb_tick(struct gs_bctx *c, uint64_t now_ns)
{
    pb_refresh(c, now_ns);
}

static void pb_explain(struct gs_bdev *b, const struct gs_gpu *gpu, struct gs_err *err)
{
    struct pb_dev *d = container_of(b, struct pb_dev, b);
    gs_err_set(err, gpu->state == GS_GPU_LOST ? GS_E_GPU_LOST : GS_E_BACKEND, "%s GPU %u: %s", d->host, d->gpu,
               gpu->last_error);
    gs_err_hint(err, gpu->state == GS_GPU_LOST
                         ? "check the node's exporter (up{instance=...} in Prometheus) and the node itself"
                         : "check that the Prometheus server answers (curl URL/-/ready)");
}

static void pb_describe(struct gs_bctx *c, void (*line)(void *arg, const char *text), void *arg)
{
    char buf[600];
    snprintf(buf, sizeof(buf), "prometheus -> %s, %u GPUs, %llu requests in %.1f ms, staleness bound %.0f s",
             gs_prom_url(c->p), c->ndev, (unsigned long long)gs_prom_requests(c->p), gs_prom_wait_ms(c->p),
             c->stale_s);
    line(arg, buf);
}

const struct gs_backend gs_prom_backend = {
    .abi = GS_BACKEND_ABI,
    .name = "prometheus",
    .caps = GS_CAP_ECC,
    .init = pb_init,
    .fini = pb_fini,
    .system_info = pb_system_info,
    .discover = pb_discover,
    .read_static = pb_read_static,
    .sample = pb_sample,
    .explain_gpu = pb_explain,
    .describe = pb_describe,
    .tick = pb_tick,
    .vendor = "NVIDIA",
    .driver = "nvidia",
};
