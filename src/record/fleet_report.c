/* SPDX-License-Identifier: MIT */
/*
 * fleet_report.c - the data of `report --prometheus`: four range queries
 * over the report's range whatever the fleet's size: utilization and power
 * per GPU (summed here by node, pod namespace and Slurm job: one selection
 * each, where aggregating on the server took one per figure and grouping),
 * memory and temperature aggregated by node on the server. Each bucket is
 * the mean over its width (avg_over_time), so energy and idle time add up
 * across buckets however coarse they are.
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/clock.h"
#include "record/fleet_report.h"

#define H GS_FLEET_HOST_LABEL
#define QMAX 16384
#define IDLE_PCT 1.0

/* What a query's series fill: per bucket (util, power) or a per-row peak. */
/* Utilization and power come per GPU (one selection each: the node, namespace and job
 * figures are summed here from the same series); memory and temperature per node. */
enum rq { RQ_GPU_UTIL, RQ_GPU_POWER, RQ_MEM, RQ_TEMP, RQ_COUNT };

struct pool;

struct load {
    struct gs_fleet_src src;
    struct pool *pool;         /* the query threads' shared state (run_queries) */
    struct gs_frep *r;
    char range[32];            /* the bucket width as a PromQL duration */
    const char *host;          /* --node, or NULL */
    char extra[8192];          /* the selection's other matchers (gs_frep_selection), "" for none */
    size_t last_node, last_group; /* rows the previous series went to: a node's GPUs come together */
    char q[QMAX];
};

/* fn by (<by>) (avg_over_time(metric{match,extra}[step])) with the node in Hostname */
static void over(struct load *l, struct gs_pq *q, const char *agg, const char *by, const char *metric,
                 const char *extra, const char *cmp)
{
    gs_pq_add(q, "%s by (%s) (", agg, by);
    gs_pq_sel(q, l->src.match, metric, extra, "avg_over_time", l->range);
    gs_pq_add(q, "%s)", cmp);
}

static void build(struct load *l, struct gs_pq *q, enum rq k)
{
    /* a selection's rows are GPUs: memory and temperature by GPU too */
    const char *by = l->r->per_gpu ? H ", gpu" : H;
    q->host = l->host;
    switch (k) {
    case RQ_GPU_UTIL: gs_pq_sel(q, l->src.match, "DCGM_FI_DEV_GPU_UTIL", l->extra, "avg_over_time", l->range); break;
    case RQ_GPU_POWER: gs_pq_sel(q, l->src.match, "DCGM_FI_DEV_POWER_USAGE", l->extra, "avg_over_time", l->range); break;
    case RQ_MEM: /* a GPU running two jobs has a series per job: counted once */
        if (!l->r->per_gpu)
            gs_pq_add(q, "sum by (" H ") (");
        over(l, q, "max", H ", gpu", "DCGM_FI_DEV_FB_USED", l->extra, l->r->per_gpu ? "" : ")");
        break;
    case RQ_TEMP: over(l, q, "max", by, "DCGM_FI_DEV_GPU_TEMP", l->extra, ""); break;
    default: break;
    }
}

int gs_frep_selection(const struct gs_frep_opts *fo, struct gs_pq *q, char *desc, size_t dlen, struct gs_err *err)
{
    const struct { const char *v, *label, *what; } part[] = {
        { fo->node, NULL, "--node" },  { fo->job, "hpc_job", "--job" },
        { fo->ns, "namespace", "--namespace" }, { fo->pod, "pod", "--pod" },
    };
    static const char *const word[] = { "node", "job", "namespace", "pod" };
    size_t dl = 0;
    bool first = true;
    desc[0] = '\0';
    for (size_t i = 0; i < sizeof(part) / sizeof(part[0]); i++) {
        if (!part[i].v)
            continue;
        int rc = gs_pq_value_check(part[i].what, part[i].v, err);
        if (rc < 0)
            return rc;
        if (dl < dlen) {
            int n = snprintf(desc + dl, dlen - dl, "%s%s \"%s\"", dl ? " " : "", word[i], part[i].v);
            dl += n > 0 ? (size_t)n : 0;
        }
        if (!part[i].label)
            continue; /* the node goes in q->host: Hostname, or instance where there is none */
        if (!first)
            gs_pq_add(q, ",");
        first = false;
        gs_pq_matcher(q, part[i].label, part[i].v);
    }
    return q->trunc ? gs_err_set(err, GS_E_USAGE, "the selection is too long for a query") : 0;
}

static void row_init(struct gs_frep_row *w, const char *name, unsigned nb, bool *fail)
{
    memset(w, 0, sizeof(*w));
    snprintf(w->name, sizeof(w->name), "%s", name);
    w->util = malloc(nb * sizeof(float));
    w->power = malloc(nb * sizeof(float));
    w->ngpu = calloc(nb, sizeof(*w->ngpu));
    if (!w->util || !w->power || !w->ngpu) {
        *fail = true;
        return;
    }
    for (unsigned b = 0; b < nb; b++)
        w->util[b] = w->power[b] = NAN;
    w->util_mean = w->util_peak = w->mem_peak_gib = w->temp_peak_c = w->power_mean_w = NAN;
}

/* The row named name in v (made when new); NULL when out of memory.
 * Prometheus sorts a result's series by their labels, so the i-th series
 * of every query is most often row i (hint): looked at first. */
static struct gs_frep_row *get_row(struct gs_frep_row **v, size_t *n, const char *name, unsigned nb,
                                   size_t hint)
{
    if (hint < *n && !strncmp((*v)[hint].name, name, sizeof((*v)->name) - 1))
        return &(*v)[hint];
    for (size_t i = 0; i < *n; i++)
        if (!strncmp((*v)[i].name, name, sizeof((*v)->name) - 1))
            return &(*v)[i];
    struct gs_frep_row *nv = realloc(*v, (*n + 1) * sizeof(**v));
    if (!nv)
        return NULL;
    *v = nv;
    bool fail = false;
    row_init(&nv[*n], name, nb, &fail);
    if (fail) {
        free(nv[*n].util);
        free(nv[*n].power);
        free(nv[*n].ngpu);
        return NULL;
    }
    return &nv[(*n)++];
}

static double fmax_nan(double a, double b)
{
    return isnan(a) ? b : isnan(b) ? a : fmax(a, b);
}

static void add(float *x, double v)
{
    *x = isnan(*x) ? (float)v : *x + (float)v;
}

static void apply_point(struct gs_frep_row *w, enum rq k, unsigned b, double v, double step)
{
    switch (k) {
    case RQ_GPU_UTIL:
        add(&w->util[b], v); /* a sum until finish_row divides by the GPUs */
        w->ngpu[b]++;
        if (v < IDLE_PCT)
            w->idle_gpu_h += step / 3600;
        break;
    case RQ_GPU_POWER: add(&w->power[b], v); break;
    case RQ_MEM: w->mem_peak_gib = fmax_nan(w->mem_peak_gib, v / 1024); break;
    case RQ_TEMP: w->temp_peak_c = fmax_nan(w->temp_peak_c, v); break;
    default: break;
    }
}

static void apply_row(struct gs_frep *r, struct gs_frep_row *w, enum rq k, const struct gs_prom_series *s)
{
    for (size_t j = 0; w && j < s->npoints; j++) {
        long b = lround((s->t[j] - r->from) / r->step) - 1;
        if (b >= 0 && b < (long)r->nb && !isnan(s->v[j]))
            apply_point(w, k, (unsigned)b, s->v[j], r->step);
    }
}

/* A series to its node's row and, per GPU, to its namespace's and job's.
 * dup: another series of the result is the same GPU (one per job on it, the
 * same reading): it counts for its job / namespace only. */
static void apply(struct load *l, enum rq k, const struct gs_prom_series *s, bool dup)
{
    const struct gs_prom_api *api = l->src.api;
    struct gs_frep *r = l->r;
    const char *h = api->label(s, H), *gpu = api->label(s, "gpu");
    char key[300];
    if (!h || !*h)
        return;
    if (r->per_gpu) {
        snprintf(key, sizeof(key), "%s:%s", h, gpu ? gpu : "?");
        h = key;
    }
    struct gs_frep_row *w = dup ? NULL : get_row(&r->nodes, &r->nnodes, h, r->nb, l->last_node);
    if (w)
        l->last_node = (size_t)(w - r->nodes);
    apply_row(r, w, k, s);
    if (k != RQ_GPU_UTIL && k != RQ_GPU_POWER)
        return;
    static const char *const groups[][2] = { { "namespace", "ns" }, { "hpc_job", "job" } };
    for (int g = 0; g < 2; g++) {
        const char *v = api->label(s, groups[g][0]);
        char name[300];
        if (!v || !*v)
            continue;
        snprintf(name, sizeof(name), "%s/%s", groups[g][1], v);
        w = get_row(&r->groups, &r->ngroups, name, r->nb, l->last_group);
        if (w)
            l->last_group = (size_t)(w - r->groups);
        apply_row(r, w, k, s);
    }
}

/* (Hostname, gpu) of series a vs b (qsort_r: ctx is the client) */
static int gpu_cmp(const void *a, const void *b, void *ctx)
{
    const struct gs_prom_api *api = ctx;
    const struct gs_prom_series *x = *(const struct gs_prom_series *const *)a;
    const struct gs_prom_series *y = *(const struct gs_prom_series *const *)b;
    const char *hx = api->label(x, H), *hy = api->label(y, H);
    int c = strcmp(hx ? hx : "", hy ? hy : "");
    if (c)
        return c;
    const char *gx = api->label(x, "gpu"), *gy = api->label(y, "gpu");
    return strcmp(gx ? gx : "", gy ? gy : "");
}

/* Which series of res repeat a GPU seen in an earlier one (NULL when out
 * of memory: then none is taken for a repeat). */
static bool *gpu_dups(const struct gs_prom_api *api, const struct gs_prom_result *res)
{
    const struct gs_prom_series **v = malloc((res->n + 1) * sizeof(*v));
    bool *dup = calloc(res->n + 1, sizeof(*dup));
    if (!v || !dup) {
        free(v);
        free(dup);
        return NULL;
    }
    for (size_t i = 0; i < res->n; i++)
        v[i] = &res->s[i];
    qsort_r(v, res->n, sizeof(*v), gpu_cmp, (void *)api);
    for (size_t i = 1; i < res->n; i++)
        if (api->label(v[i], "gpu") && gpu_cmp(&v[i - 1], &v[i], (void *)api) == 0)
            dup[v[i] - res->s] = true;
    free(v);
    return dup;
}

static void finish_row(struct gs_frep_row *w, const struct gs_frep *r)
{
    double us = 0, ps = 0, e = 0;
    unsigned un = 0, pn = 0;
    for (unsigned b = 0; b < r->nb; b++) {
        if (w->ngpu[b]) {
            w->util[b] /= w->ngpu[b];
            w->gpus_max = fmax(w->gpus_max, w->ngpu[b]);
            w->gpu_h += w->ngpu[b] * r->step / 3600;
        }
        if (!isnan(w->util[b])) {
            us += w->util[b];
            un++;
            w->util_peak = fmax_nan(w->util_peak, w->util[b]);
        }
        if (!isnan(w->power[b])) {
            ps += w->power[b];
            pn++;
            e += w->power[b] * r->step / 3600.0 / 1000.0;
        }
    }
    w->util_mean = un ? us / un : NAN;
    w->power_mean_w = pn ? ps / pn : NAN;
    w->energy_kwh = pn ? e : NAN;
}

static int row_cmp(const void *a, const void *b)
{
    /* node-a:2 before node-a:10 */
    return strverscmp(((const struct gs_frep_row *)a)->name, ((const struct gs_frep_row *)b)->name);
}

/* The range queries run on GS_FREP_WORKERS connections at once (Prometheus
 * evaluates them on its cores in parallel); their results are applied in
 * order on this thread once all are in. */
#define GS_FREP_WORKERS 4

struct worker {
    struct load *l;
    struct gs_fleet_src src;   /* its own connection */
    pthread_t th;
    bool started;
    int rc;
    struct gs_err err;
    char q[QMAX];
};

struct pool {
    pthread_mutex_t mu;
    int next;                  /* the next query to run */
    bool failed;
    struct gs_prom_result res[RQ_COUNT];
};

static void *worker_main(void *arg)
{
    struct worker *w = arg;
    struct pool *pl = w->l->pool;
    struct gs_frep *r = w->l->r;
    for (;;) {
        pthread_mutex_lock(&pl->mu);
        int k = pl->failed ? RQ_COUNT : pl->next++;
        pthread_mutex_unlock(&pl->mu);
        if (k >= RQ_COUNT)
            break;
        struct gs_pq q;
        gs_pq_init(&q, w->q, QMAX);
        q.named = w->l->src.named;
        build(w->l, &q, (enum rq)k);
        w->rc = q.trunc ? gs_err_set(&w->err, GS_E_USAGE, "the --match selector is too long for a query")
                        : w->src.api->query_range(w->src.p, w->q, r->from + r->step, r->to, r->step, &pl->res[k],
                                                  &w->err);
        if (w->rc < 0) {
            pthread_mutex_lock(&pl->mu);
            pl->failed = true;
            pthread_mutex_unlock(&pl->mu);
            break;
        }
    }
    return NULL;
}

static int run_queries(struct load *l, const struct gs_prom_opts *po, struct gs_err *err)
{
    struct pool pl = { .next = 0 };
    struct worker *w = calloc(GS_FREP_WORKERS, sizeof(*w));
    int rc = 0;
    if (!w)
        return gs_err_set(err, GS_E_NOMEM, "out of memory for the fleet report");
    pthread_mutex_init(&pl.mu, NULL);
    l->pool = &pl;
    double t0 = gs_clock_mono_s();
    for (int i = 0; i < GS_FREP_WORKERS && rc == 0; i++) { /* connections opened here, one thread */
        w[i].l = l;
        rc = gs_fleet_src_open(&w[i].src, po, err);
        if (rc == 0 && pthread_create(&w[i].th, NULL, worker_main, &w[i]) == 0)
            w[i].started = true;
    }
    for (int i = 0; i < GS_FREP_WORKERS; i++) {
        if (w[i].started)
            pthread_join(w[i].th, NULL);
        if (w[i].started && w[i].rc < 0 && rc == 0) {
            rc = w[i].rc;
            *err = w[i].err;
        }
        if (w[i].src.p)
            l->r->requests += (unsigned)w[i].src.api->requests(w[i].src.p);
        gs_fleet_src_close(&w[i].src);
    }
    if (rc == 0 && !w[0].started)
        rc = gs_err_set(err, GS_E_INTERNAL, "cannot start the report's query threads");
    l->r->query_ms += (gs_clock_mono_s() - t0) * 1e3;
    for (int k = 0; k < RQ_COUNT; k++) {
        bool *dup = rc == 0 && (k == RQ_GPU_UTIL || k == RQ_GPU_POWER) ? gpu_dups(l->src.api, &pl.res[k]) : NULL;
        for (size_t i = 0; rc == 0 && i < pl.res[k].n; i++)
            apply(l, (enum rq)k, &pl.res[k].s[i], dup && dup[i]);
        free(dup);
        if (pl.res[k].s)
            l->src.api->result_free(&pl.res[k]);
    }
    pthread_mutex_destroy(&pl.mu);
    free(w);
    return rc;
}

int gs_frep_load(const struct gs_frep_opts *fo, double from, double to, struct gs_frep *r, struct gs_err *err)
{
    /* range queries over a day of a big fleet take seconds: a minute each before giving up */
    struct gs_prom_opts po = { .url = fo->url, .config_path = fo->config, .match = fo->match, .timeout_ms = 60000 };
    struct load *l = calloc(1, sizeof(*l));
    if (!l)
        return gs_err_set(err, GS_E_NOMEM, "out of memory for the fleet report");
    memset(r, 0, sizeof(*r));
    int rc = gs_fleet_src_open(&l->src, &po, err);
    if (rc < 0)
        goto out;
    l->r = r;
    snprintf(r->url, sizeof(r->url), "%s", fo->url);
    snprintf(r->match, sizeof(r->match), "%s", fo->match ? fo->match : "");
    struct gs_pq xq;
    gs_pq_init(&xq, l->extra, sizeof(l->extra));
    rc = gs_frep_selection(fo, &xq, r->sel, sizeof(r->sel), err);
    if (rc < 0)
        goto out;
    l->host = fo->node;
    r->per_gpu = r->sel[0] != '\0';
    /* buckets: at most GS_FREP_MAX_BUCKETS, each at least two scrapes wide */
    double scrape = l->src.api->scrape_interval_s(l->src.p);
    r->step = fmax(ceil((to - from) / GS_FREP_MAX_BUCKETS), fmax(2 * scrape, 1));
    r->nb = (unsigned)((to - from) / r->step);
    if (r->nb == 0) {
        rc = gs_err_set(err, GS_E_USAGE, "the range is shorter than two scrape intervals (%.0f s)", 2 * scrape);
        goto out;
    }
    r->to = to;
    r->from = to - r->nb * r->step;
    snprintf(l->range, sizeof(l->range), "%.0fs", r->step);
    uint64_t r0 = l->src.api->requests(l->src.p);
    rc = gs_fleet_src_probe(&l->src, &r->query_ms, err);
    r->requests = (unsigned)(l->src.api->requests(l->src.p) - r0);
    if (rc == 0)
        rc = run_queries(l, &po, err);
    if (rc == 0 && r->nnodes == 0 && r->per_gpu) {
        rc = gs_err_set(err, GS_E_NO_DEVICE, "no GPU series of %s at %s%s%s over the range (check the name: "
                        "'gpuscope top --prometheus %s' lists the nodes; jobs are the hpc_job label, pods the pod "
                        "label)", r->sel, fo->url, fo->match ? " matching " : "", fo->match ? fo->match : "", fo->url);
    } else if (rc == 0 && r->nnodes == 0) {
        rc = gs_err_set(err, GS_E_NO_DEVICE, "no GPU series at %s%s%s over the range: neither dcgm-exporter's nor "
                        "gpuscope serve's DCGM_FI_DEV_GPU_UTIL", fo->url, fo->match ? " matching " : "",
                        fo->match ? fo->match : "");
    }
    for (size_t i = 0; i < r->nnodes; i++)
        finish_row(&r->nodes[i], r);
    for (size_t i = 0; i < r->ngroups; i++)
        finish_row(&r->groups[i], r);
    if (r->nnodes)
        qsort(r->nodes, r->nnodes, sizeof(*r->nodes), row_cmp);
    if (r->ngroups)
        qsort(r->groups, r->ngroups, sizeof(*r->groups), row_cmp);
out:
    gs_fleet_src_close(&l->src);
    free(l);
    return rc;
}

void gs_frep_free(struct gs_frep *r)
{
    for (size_t i = 0; i < r->nnodes; i++) {
        free(r->nodes[i].util);
        free(r->nodes[i].power);
        free(r->nodes[i].ngpu);
    }
    for (size_t i = 0; i < r->ngroups; i++) {
        free(r->groups[i].util);
        free(r->groups[i].power);
        free(r->groups[i].ngpu);
    }
    free(r->nodes);
    free(r->groups);
    memset(r, 0, sizeof(*r));
}

int gs_fleet_report_run(const struct gs_report_opts *o, const struct gs_frep_opts *fo, struct gs_err *err)
{
    struct gs_frep r;
    double t0 = gs_clock_mono_s();
    int rc = gs_frep_load(fo, o->from_ms / 1e3, o->to_ms / 1e3, &r, err);
    if (rc < 0) {
        gs_frep_free(&r);
        return rc;
    }
    FILE *out = o->output && strcmp(o->output, "-") ? fopen(o->output, "w") : stdout;
    if (!out) {
        gs_frep_free(&r);
        return gs_err_set(err, GS_E_IO, "cannot write %s: %s", o->output, strerror(errno));
    }
    r.total_ms = (gs_clock_mono_s() - t0) * 1e3;
    if (o->format == GS_REPORT_TERM)
        gs_frep_term(out, &r);
    else
        gs_frep_html(out, &r);
    rc = 0;
    if (out != stdout ? fclose(out) != 0 : fflush(out) != 0)
        rc = gs_err_set(err, GS_E_IO, "cannot write %s: %s", o->output ? o->output : "stdout", strerror(errno));
    fprintf(stderr, "report --prometheus: %zu %s, %u buckets of %.0f s, %u requests, Prometheus %.0f ms, "
            "total %.0f ms\n", r.nnodes, r.per_gpu ? "GPUs" : "nodes", r.nb, r.step, r.requests, r.query_ms,
            (gs_clock_mono_s() - t0) * 1e3);
    gs_frep_free(&r);
    return rc;
}
