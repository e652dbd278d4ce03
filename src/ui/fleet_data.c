/* SPDX-License-Identifier: MIT */
/*
 * fleet_data.c - one refresh of `top --prometheus`: a fixed list of PromQL
 * queries, each aggregated `by (Hostname)` on the server, turned into one
 * row per node; nodes seen before and missing now are kept, marked lost.
 * With a node in focus, three more queries read its GPUs, their
 * utilization charts (a range query) and one GPU's processes.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/fleetq.h"
#include "lib/clock.h"
#include "ui/fleet.h"

#define H GS_FLEET_HOST_LABEL
#define QMAX 16384
/* The throttle reasons that slow a GPU down (not idle, not application clocks). */
#define SLOW_REASONS "reason=~\"power_cap|hw_slowdown|sw_thermal|hw_thermal|hw_power_brake\""

enum node_q { Q_GPUS, Q_UTIL, Q_UTIL_MAX, Q_MEM_USED, Q_MEM_TOTAL, Q_HOT, Q_POWER, Q_THROT, Q_XID,
              Q_HEALTH, Q_TOP, Q_COUNT };

unsigned gs_fleet_node_queries(void)
{
    return Q_COUNT + 1; /* and the probe for series without a Hostname */
}

/* op by (Hostname) over a DCGM family, each GPU (or MIG instance) counted once:
 * dcgm-exporter and serve repeat a GPU's series once per HPC job (hpc_job) or
 * pod on it, with the same value, so those copies are folded first. */
static void agg(struct gs_pq *q, const char *m, const char *op, const char *metric, const char *extra)
{
    gs_pq_add(q, "%s by (" H ") (max by (" H ", gpu, GPU_I_ID) (", op);
    gs_pq_sel(q, m, metric, extra, NULL, NULL);
    gs_pq_add(q, "))");
}

/* metric{match,extra} */
static void plain(struct gs_pq *q, const char *m, const char *metric, const char *extra)
{
    gs_pq_add(q, "%s{%s%s%s}", metric, m, *m && *extra ? "," : "", extra);
}

/* op by (Hostname<by>) (metric{match,extra} joined to its node): serve's own families */
static void agg_joined(struct gs_pq *q, const char *m, const char *op, const char *by, const char *metric,
                       const char *extra)
{
    gs_pq_add(q, "%s by (" H "%s) ((", op, by);
    plain(q, m, metric, extra);
    gs_pq_add(q, ")" GS_PQ_JOIN);
    gs_pq_hosts(q, m, NULL);
    gs_pq_add(q, ")");
}

static void q_top(struct gs_pq *q, const char *m)
{
    /* pods (dcgm-exporter's and serve's labels), Slurm jobs, then processes */
    gs_pq_add(q, "topk by (" H ") (1, sum by (" H ", namespace, pod) (");
    gs_pq_sel(q, m, "DCGM_FI_DEV_FB_USED", "pod!=\"\"", NULL, NULL);
    gs_pq_add(q, ")) or topk by (" H ") (1, sum by (" H ", hpc_job) (");
    gs_pq_sel(q, m, "DCGM_FI_DEV_FB_USED", "hpc_job!=\"\"", NULL, NULL);
    gs_pq_add(q, ")) or topk by (" H ") (1, ");
    agg_joined(q, m, "sum", ", comm, user", "gpuscope_process_memory_bytes", "");
    gs_pq_add(q, " / 1048576)");
}

/* Xids in the last hour: serve's counter (a series born in the hour counts
 * whole: increase() would miss its first event); else the GPUs whose
 * dcgm-exporter gauge (the last code) was non-zero within the hour. */
static void q_xid(struct gs_pq *q, const char *m)
{
    gs_pq_add(q, "sum by (" H ") (((");
    plain(q, m, "gpuscope_xid_errors_total", "");
    gs_pq_add(q, " unless ");
    plain(q, m, "gpuscope_xid_errors_total", "");
    gs_pq_add(q, " offset 1h) or increase(");
    plain(q, m, "gpuscope_xid_errors_total", "");
    gs_pq_add(q, "[1h]))" GS_PQ_JOIN);
    gs_pq_hosts(q, m, NULL);
    gs_pq_add(q, ") or sum by (" H ") (clamp_max(");
    gs_pq_sel(q, m, "DCGM_FI_DEV_XID_ERRORS", "", "max_over_time", "1h");
    gs_pq_add(q, ", 1))");
}

static void build_node_q(struct gs_pq *q, enum node_q k, const char *m)
{
    switch (k) {
    case Q_GPUS:
        gs_pq_add(q, "count by (" H ") (group by (" H ", gpu) (");
        gs_pq_sel(q, m, "", "__name__=~\"DCGM_FI_DEV_(FB_USED|GPU_TEMP|XID_ERRORS)\"", NULL, NULL);
        gs_pq_add(q, "))");
        break;
    case Q_UTIL: agg(q, m, "avg", "DCGM_FI_DEV_GPU_UTIL", ""); break;
    case Q_UTIL_MAX: agg(q, m, "max", "DCGM_FI_DEV_GPU_UTIL", ""); break;
    case Q_MEM_USED: agg(q, m, "sum", "DCGM_FI_DEV_FB_USED", ""); break;
    case Q_MEM_TOTAL:
        agg(q, m, "sum", "DCGM_FI_DEV_FB_USED", "");
        gs_pq_add(q, " + ");
        agg(q, m, "sum", "DCGM_FI_DEV_FB_FREE", "");
        break;
    case Q_HOT:
        gs_pq_add(q, "topk by (" H ") (1, ");
        gs_pq_sel(q, m, "DCGM_FI_DEV_GPU_TEMP", "", NULL, NULL);
        gs_pq_add(q, ")");
        break;
    case Q_POWER: agg(q, m, "sum", "DCGM_FI_DEV_POWER_USAGE", ""); break;
    case Q_THROT: /* GPUs with a slowing reason active (gpuscope serve's series) */
        gs_pq_add(q, "sum by (" H ") (");
        agg_joined(q, m, "max", ", gpu", "gpuscope_throttle_reason_active", SLOW_REASONS);
        gs_pq_add(q, ")");
        break;
    case Q_XID: q_xid(q, m); break;
    case Q_HEALTH:
        agg_joined(q, m, "count", ", severity, code", "gpuscope_health_finding", "");
        gs_pq_add(q, " or ");
        agg_joined(q, m, "sum", ", severity", "gpuscope_health_findings", "");
        break;
    case Q_TOP: q_top(q, m); break;
    default: break;
    }
}

/* ---- the node table: rows found by name through an open-addressing index ---- */

struct fetch {
    struct gs_fleet_src *src;
    struct gs_fleet_snap *out;
    size_t *slot;              /* node index + 1, 0 = empty */
    size_t nslot;              /* a power of two, > 2 * out->n */
    unsigned char *top_rank;   /* per node: what kind of user `top` holds (3 pod, 2 job, 1 process) */
    bool have_gpus;            /* the GPU count query worked: only it makes rows */
    char q[QMAX];              /* the query being built */
};

static size_t hash_host(const char *h)
{
    size_t x = 1469598103934665603ull;
    for (size_t i = 0; h[i] && i < GS_FLEET_NAME - 1; i++)
        x = (x ^ (unsigned char)h[i]) * 1099511628211ull;
    return x;
}

static bool same_host(const struct gs_fleet_node *n, const char *h)
{
    return !strncmp(n->host, h, GS_FLEET_NAME - 1);
}

static long find_node(const struct fetch *f, const char *h)
{
    if (!f->nslot)
        return -1;
    for (size_t i = hash_host(h) & (f->nslot - 1);; i = (i + 1) & (f->nslot - 1)) {
        if (!f->slot[i])
            return -1;
        if (same_host(&f->out->nodes[f->slot[i] - 1], h))
            return (long)(f->slot[i] - 1);
    }
}

static int index_grow(struct fetch *f)
{
    size_t n = f->nslot ? f->nslot * 2 : 256;
    size_t *s = calloc(n, sizeof(*s));
    if (!s)
        return -1;
    for (size_t k = 0; k < f->out->n; k++) {
        size_t i = hash_host(f->out->nodes[k].host) & (n - 1);
        while (s[i])
            i = (i + 1) & (n - 1);
        s[i] = k + 1;
    }
    free(f->slot);
    f->slot = s;
    f->nslot = n;
    return 0;
}

static void node_init(struct gs_fleet_node *n, const char *h, double t)
{
    memset(n, 0, sizeof(*n));
    size_t len = strlen(h);
    n->host_cut = len >= GS_FLEET_NAME;
    memcpy(n->host, h, n->host_cut ? GS_FLEET_NAME - 1 : len);
    for (int i = 0; i < GS_FV_COUNT; i++)
        n->v[i] = NAN;
    n->last_seen = t;
}

/* The row of node h, made when new; NULL when out of memory. */
static struct gs_fleet_node *get_node(struct fetch *f, const char *h)
{
    long k = find_node(f, h);
    if (k >= 0)
        return &f->out->nodes[k];
    struct gs_fleet_snap *o = f->out;
    if (o->n == o->cap) {
        size_t cap = o->cap ? o->cap * 2 : 64;
        struct gs_fleet_node *v = realloc(o->nodes, cap * sizeof(*v));
        unsigned char *r = realloc(f->top_rank, cap);
        if (r)
            f->top_rank = r;
        if (!v || !r) {
            if (v)
                o->nodes = v;
            return NULL;
        }
        o->nodes = v;
        o->cap = cap;
    }
    if ((o->n + 1) * 2 > f->nslot && index_grow(f) < 0)
        return NULL;
    struct gs_fleet_node *n = &o->nodes[o->n];
    node_init(n, h, o->t);
    f->top_rank[o->n] = 0;
    size_t i = hash_host(n->host) & (f->nslot - 1);
    while (f->slot[i])
        i = (i + 1) & (f->nslot - 1);
    f->slot[i] = ++o->n;
    return n;
}

/* ---- the node queries' results --------------------------------------------- */

static double last_value(const struct gs_prom_series *s)
{
    return s->npoints ? s->v[s->npoints - 1] : NAN;
}

static int sev_rank(const char *sev)
{
    return !sev ? 0 : !strcmp(sev, "critical") ? 3 : !strcmp(sev, "warning") ? 2 : !strcmp(sev, "info") ? 1 : 0;
}

static void apply_health(struct gs_fleet_node *n, const struct gs_prom_api *api,
                         const struct gs_prom_series *s, double v)
{
    const char *sev = api->label(s, "severity"), *code = api->label(s, "code");
    int r = sev_rank(sev);
    if (!code) { /* the per-severity totals: known, 0 included */
        int slot = r == 3 ? GS_FV_CRIT : r == 2 ? GS_FV_WARN : r == 1 ? GS_FV_INFO : -1;
        if (slot >= 0)
            n->v[slot] = v;
        return;
    }
    /* keep the code of the most severe finding, "c:" "w:" "i:" in front */
    static const char *const pre[] = { "", "i:", "w:", "c:" };
    int have = n->finding[0] == 'c' ? 3 : n->finding[0] == 'w' ? 2 : n->finding[0] == 'i' ? 1 : 0;
    if (r > have)
        snprintf(n->finding, sizeof(n->finding), "%s%s", pre[r], code);
}

static void apply_top(struct fetch *f, struct gs_fleet_node *n, const struct gs_prom_series *s, double v)
{
    const struct gs_prom_api *api = f->src->api;
    const char *pod = api->label(s, "pod"), *job = api->label(s, "hpc_job"), *comm = api->label(s, "comm");
    unsigned char rank = pod ? 3 : job ? 2 : comm ? 1 : 0;
    size_t k = (size_t)(n - f->out->nodes);
    if (!rank || isnan(v) || rank < f->top_rank[k] || (rank == f->top_rank[k] && v <= n->v[GS_FV_TOP_MIB]))
        return;
    f->top_rank[k] = rank;
    n->v[GS_FV_TOP_MIB] = v;
    if (pod) {
        const char *ns = api->label(s, "namespace");
        snprintf(n->top, sizeof(n->top), "%s%s%s", ns ? ns : "", ns ? "/" : "", pod);
    } else if (job) {
        snprintf(n->top, sizeof(n->top), "job %s", job);
    } else {
        const char *user = api->label(s, "user");
        snprintf(n->top, sizeof(n->top), "%s%s%s%s", comm, user ? " (" : "", user ? user : "", user ? ")" : "");
    }
}

static void apply_series(struct fetch *f, enum node_q k, const struct gs_prom_series *s)
{
    static const int field[Q_COUNT] = {
        [Q_GPUS] = GS_FV_GPUS, [Q_UTIL] = GS_FV_UTIL, [Q_UTIL_MAX] = GS_FV_UTIL_MAX,
        [Q_MEM_USED] = GS_FV_MEM_USED, [Q_MEM_TOTAL] = GS_FV_MEM_TOTAL, [Q_HOT] = GS_FV_TEMP_MAX,
        [Q_POWER] = GS_FV_POWER, [Q_THROT] = GS_FV_THROTTLED, [Q_XID] = GS_FV_XID_1H,
    };
    const struct gs_prom_api *api = f->src->api;
    const char *h = api->label(s, H);
    if (!h || !*h)
        return; /* neither Hostname nor instance: not a node's series */
    /* The GPU count says which nodes are there now: a query over the last
     * hour (Xids) still sees a node that went away. */
    long k0 = f->have_gpus && k != Q_GPUS ? find_node(f, h) : -2;
    struct gs_fleet_node *n = k0 == -2 ? get_node(f, h) : k0 >= 0 ? &f->out->nodes[k0] : NULL;
    if (!n)
        return;
    double v = last_value(s);
    switch (k) {
    case Q_HEALTH: apply_health(n, api, s, v); return;
    case Q_TOP: apply_top(f, n, s, v); return;
    case Q_HOT: {
        const char *g = api->label(s, "gpu");
        n->v[GS_FV_HOT_GPU] = g ? strtod(g, NULL) : NAN;
        break;
    }
    case Q_XID: /* `or`: serve's counter wins over the dcgm gauge's count */
        if (!isnan(n->v[GS_FV_XID_1H]))
            return;
        break;
    default: break;
    }
    n->v[field[k]] = v;
}

static int run_node_queries(struct fetch *f, struct gs_err *err)
{
    struct gs_fleet_src *src = f->src;
    char *q = f->q;
    int ok = 0, last_rc = 0;

    for (int k = 0; k < Q_COUNT && !atomic_load(&src->cancel); k++) {
        struct gs_pq pq;
        struct gs_prom_result res = { 0 };
        struct gs_err qe = { 0 };
        gs_pq_init(&pq, q, QMAX);
        pq.named = src->named;
        build_node_q(&pq, (enum node_q)k, src->match);
        int rc = pq.trunc ? gs_err_set(&qe, GS_E_USAGE, "the --match selector is too long for a query "
                                       "(%zu bytes at most)", sizeof(src->match))
                          : src->api->query(src->p, q, 0, &res, &qe);
        if (rc < 0) {
            f->out->failed++;
            if (!f->out->err.code)
                f->out->err = qe;
            last_rc = rc;
            continue;
        }
        ok++;
        f->have_gpus |= k == Q_GPUS;
        f->out->query_ms += res.query_ms;
        for (size_t i = 0; i < res.n; i++)
            apply_series(f, (enum node_q)k, &res.s[i]);
        src->api->result_free(&res);
    }
    if (!ok && err)
        *err = f->out->err;
    return ok ? 0 : last_rc;
}

/* ---- one node's GPUs, their charts, one GPU's processes -------------------- */

#define NODE_NAMES "DCGM_FI_DEV_(GPU_UTIL|MEM_COPY_UTIL|FB_USED|FB_FREE|GPU_TEMP|POWER_USAGE|SM_CLOCK|" \
                   "MEM_CLOCK|ENC_UTIL|DEC_UTIL|XID_ERRORS)|gpuscope_health_finding|gpuscope_throttle_reason_active"
#define CHART_S 600.0 /* the charts span the last 10 minutes */

static const char *const gval_names[GS_FG_COUNT] = {
    [GS_FG_UTIL] = "DCGM_FI_DEV_GPU_UTIL", [GS_FG_MEMUTIL] = "DCGM_FI_DEV_MEM_COPY_UTIL",
    [GS_FG_FB_USED] = "DCGM_FI_DEV_FB_USED", [GS_FG_FB_FREE] = "DCGM_FI_DEV_FB_FREE",
    [GS_FG_TEMP] = "DCGM_FI_DEV_GPU_TEMP", [GS_FG_POWER] = "DCGM_FI_DEV_POWER_USAGE",
    [GS_FG_SM_CLK] = "DCGM_FI_DEV_SM_CLOCK", [GS_FG_MEM_CLK] = "DCGM_FI_DEV_MEM_CLOCK",
    [GS_FG_ENC] = "DCGM_FI_DEV_ENC_UTIL", [GS_FG_DEC] = "DCGM_FI_DEV_DEC_UTIL",
    [GS_FG_XID] = "DCGM_FI_DEV_XID_ERRORS",
};

static struct gs_fleet_gpu *get_gpu(struct gs_fleet_snap *o, const char *idx)
{
    if (!idx || !*idx)
        return NULL;
    int i = (int)strtol(idx, NULL, 10);
    for (size_t k = 0; k < o->ngpus; k++)
        if (o->gpus[k].index == i)
            return &o->gpus[k];
    struct gs_fleet_gpu *v = realloc(o->gpus, (o->ngpus + 1) * sizeof(*v));
    if (!v)
        return NULL;
    o->gpus = v;
    struct gs_fleet_gpu *g = &v[o->ngpus++];
    memset(g, 0, sizeof(*g));
    g->index = i;
    for (int k = 0; k < GS_FG_COUNT; k++)
        g->v[k] = NAN;
    for (int k = 0; k < GS_FLEET_HIST; k++)
        g->hist[k] = NAN;
    return g;
}

static void copy_label(const struct gs_prom_api *api, const struct gs_prom_series *s, const char *name,
                       char *dst, size_t len)
{
    const char *v = api->label(s, name);
    if (v && !*dst)
        snprintf(dst, len, "%s", v);
}

static void apply_gpu_series(const struct gs_prom_api *api, struct gs_fleet_gpu *g, const struct gs_prom_series *s)
{
    const char *name = api->label(s, "__name__");
    double v = last_value(s);
    if (!name)
        return;
    copy_label(api, s, "UUID", g->uuid, sizeof(g->uuid));
    copy_label(api, s, "modelName", g->model, sizeof(g->model));
    const char *pod = api->label(s, "pod");
    if (pod && *pod && !g->pod[0]) {
        const char *ns = api->label(s, "namespace");
        snprintf(g->pod, sizeof(g->pod), "%s%s%s", ns ? ns : "", ns ? "/" : "", pod);
    }
    if (!strcmp(name, "gpuscope_throttle_reason_active")) {
        const char *reason = api->label(s, "reason");
        g->throttle_known = true;
        if (reason && v == 1) {
            size_t n = strlen(g->throttle);
            snprintf(g->throttle + n, sizeof(g->throttle) - n, "%s%s", n ? "," : "", reason);
        }
        return;
    }
    if (!strcmp(name, "gpuscope_health_finding")) {
        const char *code = api->label(s, "code"), *sev = api->label(s, "severity");
        if (code && (!g->finding[0] || sev_rank(sev) == 3))
            snprintf(g->finding, sizeof(g->finding), "%s", code);
        return;
    }
    for (int k = 0; k < GS_FG_COUNT; k++)
        if (!strcmp(name, gval_names[k]))
            g->v[k] = v;
}

static int node_query(struct fetch *f, const char *names, const char *extra, double range_s, double step,
                      struct gs_prom_result *res, struct gs_err *err)
{
    struct gs_fleet_src *src = f->src;
    struct gs_pq pq;
    gs_pq_init(&pq, f->q, QMAX);
    pq.named = src->named;
    gs_pq_node(&pq, src->match, names, extra, f->out->focus_host);
    if (pq.trunc)
        return gs_err_set(err, GS_E_USAGE, "the node name or --match is too long for a query");
    int rc = range_s > 0 ? src->api->query_range(src->p, f->q, f->out->t - range_s, f->out->t, step, res, err)
                         : src->api->query(src->p, f->q, 0, res, err);
    if (rc == 0)
        f->out->query_ms += res->query_ms;
    return rc;
}

static void fetch_charts(struct fetch *f, double step)
{
    struct gs_prom_result res = { 0 };
    struct gs_err qe = { 0 };
    struct gs_fleet_snap *o = f->out;
    double t0 = o->t - CHART_S;
    if (node_query(f, "DCGM_FI_DEV_GPU_UTIL", "", CHART_S, step, &res, &qe) < 0) {
        if (!o->err.code)
            o->err = qe;
        o->failed++;
        return;
    }
    for (size_t i = 0; i < res.n; i++) {
        struct gs_fleet_gpu *g = get_gpu(o, f->src->api->label(&res.s[i], "gpu"));
        for (size_t j = 0; g && j < res.s[i].npoints; j++) {
            long b = lround((res.s[i].t[j] - t0) / CHART_S * (GS_FLEET_HIST - 1));
            if (b >= 0 && b < GS_FLEET_HIST)
                g->hist[b] = (float)res.s[i].v[j];
        }
    }
    f->src->api->result_free(&res);
}

static void fetch_procs(struct fetch *f)
{
    struct gs_prom_result res = { 0 };
    struct gs_err qe = { 0 };
    struct gs_fleet_snap *o = f->out;
    const struct gs_prom_api *api = f->src->api;
    char extra[32];
    snprintf(extra, sizeof(extra), "gpu=\"%d\"", o->focus_gpu);
    if (node_query(f, "gpuscope_process_(memory_bytes|sm_utilization_ratio)", extra, 0, 0, &res, &qe) < 0) {
        if (!o->err.code)
            o->err = qe;
        o->failed++;
        return;
    }
    o->procs_known = res.n > 0;
    for (size_t i = 0; i < res.n; i++) {
        const struct gs_prom_series *s = &res.s[i];
        const char *pid = api->label(s, "pid"), *name = api->label(s, "__name__");
        if (!pid || !name)
            continue;
        long p = strtol(pid, NULL, 10);
        size_t k = 0;
        while (k < o->nprocs && o->procs[k].pid != p)
            k++;
        if (k == o->nprocs) {
            struct gs_fleet_proc *v = realloc(o->procs, (o->nprocs + 1) * sizeof(*v));
            if (!v)
                break;
            o->procs = v;
            memset(&v[k], 0, sizeof(v[k]));
            v[k].pid = p;
            v[k].mem_mib = v[k].sm_pct = NAN;
            o->nprocs++;
        }
        struct gs_fleet_proc *pr = &o->procs[k];
        copy_label(api, s, "comm", pr->comm, sizeof(pr->comm));
        copy_label(api, s, "user", pr->user, sizeof(pr->user));
        const char *pod = api->label(s, "pod");
        if (pod && *pod && !pr->pod[0])
            snprintf(pr->pod, sizeof(pr->pod), "%s/%s", api->label(s, "namespace") ? api->label(s, "namespace") : "", pod);
        if (strstr(name, "memory_bytes"))
            pr->mem_mib = last_value(s) / 1048576.0;
        else
            pr->sm_pct = last_value(s) * 100.0;
    }
    api->result_free(&res);
}

static int gpu_cmp(const void *a, const void *b)
{
    return ((const struct gs_fleet_gpu *)a)->index - ((const struct gs_fleet_gpu *)b)->index;
}

static void fetch_focus(struct fetch *f, double step)
{
    struct gs_prom_result res = { 0 };
    struct gs_err qe = { 0 };
    struct gs_fleet_snap *o = f->out;
    if (node_query(f, NODE_NAMES, "", 0, 0, &res, &qe) < 0) {
        if (!o->err.code)
            o->err = qe;
        o->failed++;
        return;
    }
    for (size_t i = 0; i < res.n; i++) {
        struct gs_fleet_gpu *g = get_gpu(o, f->src->api->label(&res.s[i], "gpu"));
        if (g)
            apply_gpu_series(f->src->api, g, &res.s[i]);
    }
    f->src->api->result_free(&res);
    fetch_charts(f, step);
    if (o->focus_gpu >= 0)
        fetch_procs(f);
    if (o->ngpus)
        qsort(o->gpus, o->ngpus, sizeof(*o->gpus), gpu_cmp);
}

/* ---- a refresh ------------------------------------------------------------- */

static void merge_lost(struct fetch *f, const struct gs_fleet_snap *prev)
{
    for (size_t i = 0; prev && i < prev->n; i++) {
        const struct gs_fleet_node *pn = &prev->nodes[i];
        if (find_node(f, pn->host) >= 0)
            continue;
        struct gs_fleet_node *n = get_node(f, pn->host);
        if (!n)
            return;
        *n = *pn;
        if (!pn->lost) {
            n->lost = true;
            n->lost_since = f->out->t;
        }
    }
}

int gs_fleet_fetch(struct gs_fleet_src *s, const struct gs_fleet_snap *prev, const char *focus_host,
                   int focus_gpu, struct gs_fleet_snap *out, struct gs_err *err)
{
    struct fetch *f = calloc(1, sizeof(*f));
    if (!f)
        return gs_err_set(err, GS_E_NOMEM, "out of memory for a fleet refresh");
    gs_fleet_snap_free(out);
    out->t = (double)gs_clock_wall_ms() / 1e3;
    out->focus_gpu = -1;
    f->src = s;
    f->out = out;
    uint64_t r0 = s->api->requests(s->p);
    int rc = gs_fleet_src_probe(s, &out->query_ms, err);
    if (rc == 0)
        rc = run_node_queries(f, err);
    if (rc == 0 && atomic_load(&s->cancel))
        rc = gs_err_set(err, GS_E_INTERNAL, "the refresh was cancelled");
    if (rc == 0) {
        merge_lost(f, prev);
        if (focus_host && *focus_host) {
            snprintf(out->focus_host, sizeof(out->focus_host), "%s", focus_host);
            out->focus_gpu = focus_gpu;
            fetch_focus(f, CHART_S / (GS_FLEET_HIST - 1));
        }
    }
    out->requests = (unsigned)(s->api->requests(s->p) - r0);
    free(f->slot);
    free(f->top_rank);
    free(f);
    return rc;
}

void gs_fleet_snap_free(struct gs_fleet_snap *s)
{
    free(s->nodes);
    free(s->gpus);
    free(s->procs);
    memset(s, 0, sizeof(*s));
    s->focus_gpu = -1;
}

static void *dup_array(const void *src, size_t n, size_t size, bool *fail)
{
    if (!n)
        return NULL;
    void *d = malloc(n * size);
    if (!d)
        *fail = true;
    else
        memcpy(d, src, n * size);
    return d;
}

int gs_fleet_snap_copy(struct gs_fleet_snap *dst, const struct gs_fleet_snap *src)
{
    bool fail = false;
    *dst = *src;
    dst->nodes = dup_array(src->nodes, src->n, sizeof(*src->nodes), &fail);
    dst->cap = src->n;
    dst->gpus = dup_array(src->gpus, src->ngpus, sizeof(*src->gpus), &fail);
    dst->procs = dup_array(src->procs, src->nprocs, sizeof(*src->procs), &fail);
    if (fail) {
        gs_fleet_snap_free(dst);
        return -GS_E_NOMEM;
    }
    return 0;
}
