/* SPDX-License-Identifier: MIT */
/*
 * exporter.c - gs_serve_run(): the sampler thread and the generations it
 * publishes (see serve.h). Contents:
 *   1. generations: create, publish (pointer swap under a mutex), acquire, release
 *   2. one tick: sample, count Xids, run the health engine, publish; renderings on first request
 *   3. the sampler thread (ticks on a monotonic deadline; stops at once)
 *   4. gs_serve_run: open, first tick, HTTP, wait for a signal (SIGHUP: reload the web config), tear down
 */
#include "serve/serve.h"

#include <errno.h>
#include <jansson.h>
#include <malloc.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/pyhook.h"
#include "core/sampler.h"
#include "core/jobmap.h"
#include "k8s/kubelet.h"
#include "format/format.h"
#include "serve/pbuf.h"
#include "serve/podmap.h"
#include "serve/prom.h"
#include "serve/webcfg.h"
#include "lib/clock.h"
#include "lib/vec.h"

struct gs_exporter {
    struct gs_serve_opts o;
    struct gs_sampler *sampler;
    struct gs_prom *prom;
    struct gs_podmap *podmap;
    struct gs_kubelet *kubelet;   /* the pod-resources refresher, NULL: off */
    struct gs_jobmap_dir *jobdir; /* --hpc-job-mapping-dir, NULL: off */
    char **resnames;              /* --nvidia-resource-names, split */
    unsigned nresnames;
    size_t resnames_cap;
    struct gs_snapshot snap;      /* sampled into every tick (its arrays are reused) */
    struct gs_snapshot down;      /* after a backend failure: the last published GPUs, marked down */
    bool have_good;               /* a good snapshot was published (gen has the GPUs' identities) */
    struct gs_prom_self self;
    struct gs_prom_xid_tally xids;     /* Xid events per (GPU, code) since start (sampler thread only) */
    struct gs_prom_health_run *health; /* the health engine (sampler thread only); NULL: out of memory */
    pthread_mutex_t render_lock;  /* guards prom, podmap and the hints: renderers run in HTTP threads */
    size_t text_hint, om_hint;    /* last rendering sizes, to allocate once per rendering */
    char last_err[384];           /* last logged sampler error, to log changes only */
    bool health_nomem;            /* the latest health evaluation ran out of memory (logged once) */
    char hostname[256];

    pthread_mutex_t pub_lock;     /* guards gen and tick_mono_ns */
    struct gs_gen *gen;           /* latest published generation (holds one reference) */
    uint64_t tick_mono_ns;        /* when the latest tick completed */
    double start_unix_s;

    pthread_t thread;
    pthread_mutex_t stop_lock;
    pthread_cond_t stop_cond;     /* CLOCK_MONOTONIC */
    bool stop;
};

static double ex_unix_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* ---- 1. generations --------------------------------------------------------------------- */

static void gen_free(struct gs_gen *g)
{
    free(g->text);
    free(g->om);
    free(g->json);
    free(g->xids);
    free(g->health);
    gs_k8s_map_unref(g->kube_map);
    gs_jobmap_unref(g->jobmap);
    gs_snapshot_release(&g->snap);
    pthread_mutex_destroy(&g->lock);
    free(g);
}

void gs_gen_release(struct gs_gen *g)
{
    if (g && atomic_fetch_sub_explicit(&g->refs, 1, memory_order_acq_rel) == 1)
        gen_free(g);
}

struct gs_gen *gs_exporter_acquire(struct gs_exporter *ex)
{
    pthread_mutex_lock(&ex->pub_lock);
    struct gs_gen *g = ex->gen;
    atomic_fetch_add_explicit(&g->refs, 1, memory_order_relaxed);
    pthread_mutex_unlock(&ex->pub_lock);
    return g;
}

/* A superseded generation keeps only its renderings (responses in flight
 * still send them): its snapshot, the largest part, goes at once rather than
 * when the slowest client finishes. gs_gen_metrics/gs_gen_json move a late
 * caller to the newer generation. */
static void gen_retire(struct gs_gen *g)
{
    pthread_mutex_lock(&g->lock);
    g->retired = true;
    gs_snapshot_release(&g->snap);
    pthread_mutex_unlock(&g->lock);
}

static void ex_publish(struct gs_exporter *ex, struct gs_gen *g)
{
    pthread_mutex_lock(&ex->pub_lock);
    struct gs_gen *old = ex->gen;
    ex->gen = g;
    ex->tick_mono_ns = gs_clock_mono_ns();
    pthread_mutex_unlock(&ex->pub_lock);
    if (old) {
        gen_retire(old);
        gs_gen_release(old);
    }
}

static int ex_render(struct gs_exporter *ex, struct gs_pbuf *b, size_t *hint,
                     const struct gs_gen *g, enum gs_prom_format fmt)
{
    gs_pbuf_init(b);
    gs_pbuf_grow(b, *hint + *hint / 8);
    int rc = gs_prom_render(ex->prom, b, &g->snap, &g->self, fmt);
    *hint = b->len;
    return rc;
}

/* fmt's rendering of *gp, made on first use. A generation retired since the
 * caller acquired it (its snapshot released) and never rendered in fmt is
 * swapped for the latest one, whose snapshot is still there. */
const char *gs_gen_metrics(struct gs_exporter *ex, struct gs_gen **gp, enum gs_prom_format fmt, size_t *len)
{
    bool om = fmt == GS_PROM_OPENMETRICS;
    for (;;) {
        struct gs_gen *g = *gp;
        char **out = om ? &g->om : &g->text;
        size_t *out_len = om ? &g->om_len : &g->text_len;
        pthread_mutex_lock(&g->lock);
        if (!*out && !g->retired) {
            struct gs_pbuf b;
            pthread_mutex_lock(&ex->render_lock);
            int rc = ex_render(ex, &b, om ? &ex->om_hint : &ex->text_hint, g, fmt);
            pthread_mutex_unlock(&ex->render_lock);
            if (rc == 0) {
                *out = b.data;
                *out_len = b.len;
            } else {
                gs_pbuf_release(&b);
            }
        }
        bool retry = !*out && g->retired;
        pthread_mutex_unlock(&g->lock);
        if (!retry) {
            *len = *out_len;
            return *out;
        }
        *gp = gs_exporter_acquire(ex);
        gs_gen_release(g);
    }
}

const char *gs_gen_json(struct gs_exporter *ex, struct gs_gen **gp, size_t *len)
{
    for (;;) {
        struct gs_gen *g = *gp;
        pthread_mutex_lock(&g->lock);
        if (!g->json && !g->retired) {
            /* command lines can hold secrets: only with --process-cmdline, as on /metrics */
            g->json = gs_json_text_ex(&g->snap, true, ex->o.process_cmdline ? 0 : GS_JSON_REDACT_CMDLINE,
                                      &g->json_len);
            if (!g->json)
                g->json_len = 0;
        }
        bool retry = !g->json && g->retired;
        pthread_mutex_unlock(&g->lock);
        if (!retry) {
            *len = g->json_len;
            return g->json;
        }
        *gp = gs_exporter_acquire(ex);
        gs_gen_release(g);
    }
}

double gs_exporter_tick_age(struct gs_exporter *ex)
{
    pthread_mutex_lock(&ex->pub_lock);
    uint64_t t = ex->tick_mono_ns;
    pthread_mutex_unlock(&ex->pub_lock);
    return (double)(gs_clock_mono_ns() - t) / 1e9;
}

double gs_exporter_stale_after(const struct gs_exporter *ex)
{
    double s = 10.0 * ex->o.interval_ms / 1000.0;
    return s < 30.0 ? 30.0 : s;
}

double gs_exporter_start_unix(const struct gs_exporter *ex)
{
    return ex->start_unix_s;
}

bool gs_exporter_openmetrics(const struct gs_exporter *ex)
{
    return ex->o.openmetrics;
}

/* ---- 2. one tick ----------------------------------------------------------------------- */

/* NVML failed as a whole: what is still true is the previous snapshot's static
 * facts; every GPU is reported down and its sample fields absent. */
static void ex_mark_down(struct gs_snapshot *snap)
{
    for (uint32_t i = 0; i < snap->ngpus; i++) {
        struct gs_gpu *g = &snap->gpus[i];
        g->state = GS_GPU_ERROR;
        g->s.valid = GS_FMASK_NONE;
        memset(g->s.status, GS_ST_ERROR, sizeof(g->s.status));
        g->nprocs = 0;
        g->procs_status = GS_ST_ERROR;
    }
}

/* dst = the GPUs of src (the published generation's snapshot), marked down,
 * without process arrays: what a failed tick shows. Sampler thread only (it
 * alone replaces the published generation), so src cannot go away meanwhile. */
static int ex_copy_down(struct gs_snapshot *dst, const struct gs_snapshot *src)
{
    if (dst != src && gs_snapshot_copy(dst, src) < 0)
        return -1;
    ex_mark_down(dst);
    for (uint32_t i = 0; i < dst->ngpus; i++) {
        free(dst->gpus[i].procs);
        dst->gpus[i].procs = NULL;
        dst->gpus[i].procs_cap = 0;
    }
    return 0;
}

static void ex_log_err(struct gs_exporter *ex, int rc, const struct gs_err *err)
{
    if (rc == 0) {
        if (ex->last_err[0])
            fprintf(stderr, "gpuscope serve: sampling recovered\n");
        ex->last_err[0] = '\0';
        return;
    }
    if (strcmp(ex->last_err, err->msg)) {
        fprintf(stderr, "gpuscope serve: sampling: %s\n", err->msg);
        snprintf(ex->last_err, sizeof(ex->last_err), "%s", err->msg);
    }
}

/* Take one snapshot; returns the one to render. */
static struct gs_snapshot *ex_sample(struct gs_exporter *ex)
{
    struct gs_err err = { 0 };
    struct gs_snapshot *cur = &ex->snap;
    uint64_t t0 = gs_clock_mono_ns();
    cur->nevents = 0; /* a failed snapshot must not recount an older tick's events */
    cur->events_dropped = 0;
    int rc = gs_sampler_snapshot(ex->sampler, cur, &err);
    gs_prom_xid_tally_add(&ex->xids, cur);
    ex->self.events_dropped_total = ex->xids.dropped;
    if (ex->health) {
        int hrc = gs_prom_health_tick(ex->health, cur, rc);
        if (hrc == 0)
            ex->self.health = gs_prom_health_list(ex->health, &ex->self.nhealth);
        else if (!ex->health_nomem)
            fprintf(stderr, "gpuscope serve: health: out of memory: the findings stay those of the last "
                            "complete evaluation\n");
        ex->health_nomem = hrc < 0;
    }
    ex->self.health_on = ex->health != NULL;

    ex->self.sample_duration_s = (double)(gs_clock_mono_ns() - t0) / 1e9;
    ex->self.samples_total++;
    if (rc < 0)
        ex->self.sample_errors_total++;
    ex_log_err(ex, rc, &err);
    if (rc < 0 && rc != -GS_E_GPU_LOST && rc != -GS_E_BACKEND) {
        ex->self.backend_up = false;
        if (!ex->have_good || !ex->gen || ex_copy_down(&ex->down, &ex->gen->snap) < 0)
            return cur;  /* nothing known at all (or no memory): render what this tick read */
        return &ex->down;
    }
    bool any = false;
    for (uint32_t i = 0; i < cur->ngpus; i++)
        any |= cur->gpus[i].state == GS_GPU_OK;
    ex->self.backend_up = any;
    if (any)
        ex->self.last_sample_unix_s = (double)cur->wall.tv_sec + cur->wall.tv_nsec / 1e9;
    ex->have_good = true;
    return cur;
}

/* The kubelet's latest pod map (a reference the generation keeps) and health. */
static void ex_kube_tick(struct gs_exporter *ex, struct gs_gen *g)
{
    struct gs_kubelet_status st;
    if (!ex->kubelet)
        return;
    gs_kubelet_status(ex->kubelet, &st);
    g->kube_map = st.map;
    g->self.kube = (struct gs_prom_kube){
        .on = st.seen,
        .map = st.map,
        .map_age_s = st.map ? (double)(gs_clock_mono_ns() - st.map_mono_ns) / 1e9 : 0,
        .up = st.up,
        .refreshes = st.refreshes,
        .errors = st.errors,
        .duration_s = st.last_duration_s,
        .cpu_s = st.cpu_s,
    };
}

/* Move src's arrays into dst (the generation owns them from now on: no copy,
 * and between ticks the published generation holds the only snapshot), and
 * give src empty process arrays of the same sizes, so the next tick fills
 * them without growing (untouched until then: large ones are fresh mappings,
 * not resident). A reservation that fails is left to the sampler to grow. */
static void ex_take(struct gs_snapshot *dst, struct gs_snapshot *src)
{
    uint32_t n = src->ngpus;
    *dst = *src;
    gs_snapshot_init(src);
    if (!n || !(src->gpus = calloc(n, sizeof(*src->gpus))))
        return;
    src->ngpus = n;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t np = dst->gpus[i].nprocs;
        if (np && (src->gpus[i].procs = malloc((size_t)np * sizeof(*src->gpus[i].procs))))
            src->gpus[i].procs_cap = np;
    }
}

/* Publish the snapshot as a new generation; rendering waits for the first request. */
static int ex_tick(struct gs_exporter *ex)
{
    struct gs_snapshot *snap = ex_sample(ex);
    struct gs_gen *g = calloc(1, sizeof(*g));

    if (ex->podmap) {
        pthread_mutex_lock(&ex->render_lock);
        gs_podmap_tick(ex->podmap, gs_clock_mono_ns());
        pthread_mutex_unlock(&ex->render_lock);
    }
    if (g && ex->xids.n && !(g->xids = malloc(ex->xids.n * sizeof(*g->xids)))) {
        free(g);
        g = NULL;
    }
    if (g && ex->self.nhealth && !(g->health = malloc(ex->self.nhealth * sizeof(*g->health)))) {
        free(g->xids);
        free(g);
        g = NULL;
    }
    if (!g) {
        fprintf(stderr, "gpuscope serve: out of memory publishing a sample; keeping the previous one\n");
        return -GS_E_NOMEM;
    }
    ex_take(&g->snap, snap);
    if (ex->xids.n)
        memcpy(g->xids, ex->xids.v, ex->xids.n * sizeof(*g->xids));
    atomic_init(&g->refs, 1);
    pthread_mutex_init(&g->lock, NULL);
    g->self = ex->self;
    g->self.xids = g->xids;
    g->self.nxids = ex->xids.n;
    if (ex->self.nhealth)
        memcpy(g->health, ex->self.health, ex->self.nhealth * sizeof(*g->health));
    g->self.health = g->health;
    g->good_unix_s = ex->self.last_sample_unix_s;
    ex_kube_tick(ex, g);
    if (ex->jobdir) { /* a stat per file per tick; the files are read again only when one changed */
        g->jobmap = gs_jobmap_ref(gs_jobmap_dir_tick(ex->jobdir));
        g->self.jobs = (struct gs_prom_jobs){ .dir_on = true, .map = g->jobmap };
    }
    ex_publish(ex, g);
    return 0;
}

/* ---- 3. the sampler thread ------------------------------------------------------------------ */

static void *ex_thread(void *arg)
{
    struct gs_exporter *ex = arg;
    struct timespec next;
    clock_gettime(CLOCK_MONOTONIC, &next);
    for (;;) {
        uint64_t ns = (uint64_t)next.tv_nsec + (uint64_t)ex->o.interval_ms * 1000000ull;
        next.tv_sec += (time_t)(ns / 1000000000ull);
        next.tv_nsec = (long)(ns % 1000000000ull);
        pthread_mutex_lock(&ex->stop_lock);
        while (!ex->stop && pthread_cond_timedwait(&ex->stop_cond, &ex->stop_lock, &next) != ETIMEDOUT)
            ;
        bool stop = ex->stop;
        pthread_mutex_unlock(&ex->stop_lock);
        if (stop)
            break;
        ex_tick(ex);
        /* fell behind (a slow tick): restart the schedule from now instead of bursting */
        struct timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now);
        if (now.tv_sec > next.tv_sec || (now.tv_sec == next.tv_sec && now.tv_nsec > next.tv_nsec))
            next = now;
    }
    return NULL;
}

/* ---- 4. running -------------------------------------------------------------------------------- */

static void ex_hostname(struct gs_exporter *ex)
{
    const char *h = ex->o.hostname ? ex->o.hostname : getenv("NODE_NAME");
    if (h && *h) {
        snprintf(ex->hostname, sizeof(ex->hostname), "%s", h);
        return;
    }
    if (gethostname(ex->hostname, sizeof(ex->hostname) - 1) < 0)
        snprintf(ex->hostname, sizeof(ex->hostname), "localhost");
    ex->hostname[sizeof(ex->hostname) - 1] = '\0';
}

/* Split --nvidia-resource-names at commas. */
static int ex_resnames(struct gs_exporter *ex, struct gs_err *err)
{
    size_t n;
    for (const char *s = ex->o.resource_names; s && *s; s += n + (s[n] == ',')) {
        if (!(n = strcspn(s, ",")))
            continue; /* ",," */
        char **v = gs_vec_grow(ex->resnames, &ex->resnames_cap, (size_t)ex->nresnames + 1, sizeof(*v));
        if (!v)
            return gs_err_set(err, GS_E_NOMEM, "out of memory");
        ex->resnames = v;
        if (!(v[ex->nresnames] = strndup(s, n)))
            return gs_err_set(err, GS_E_NOMEM, "out of memory");
        ex->nresnames++;
    }
    return 0;
}

/* Start reading pods from the kubelet, and wait (at most one call's timeout) for the
 * first answer, so that the first scrapes already carry its labels. */
static int ex_kube_open(struct gs_exporter *ex, struct gs_err *err)
{
    const char *sock = ex->o.kubelet_socket;
    if (sock && (!*sock || !strcmp(sock, "none")))
        return 0;
    int rc = ex_resnames(ex, err);
    if (rc < 0)
        return rc;
    struct gs_kubelet_opts ko = { .socket = sock ? sock : GS_KUBELET_SOCKET,
                                  .interval_ms = ex->o.kubelet_interval_ms,
                                  .timeout_ms = ex->o.kubelet_timeout_ms,
                                  .required = sock != NULL,
                                  .map = { (const char *const *)ex->resnames, ex->nresnames } };
    if ((rc = gs_kubelet_start(&ex->kubelet, &ko, err)) < 0)
        return rc;
    gs_kubelet_wait_first(ex->kubelet, ko.timeout_ms + 200);
    return 0;
}

static int ex_open(struct gs_exporter *ex, struct gs_err *err)
{
    struct gs_sampler_opts so = GS_SAMPLER_OPTS_INIT;
    so.nvml_lib = ex->o.nvml_lib;
    so.slow = GS_SLOW_THREAD;
    so.slow_interval_ms = ex->o.interval_ms;
    so.pyhook = GS_PYHOOK_ASYNC; /* gpuscope_process_torch_*: from the processes' Python hooks, never waited for */
    int rc = gs_sampler_open(&ex->sampler, &so, err);
    if (rc < 0)
        return rc;
    const char *root = ex->o.host_root ? ex->o.host_root : getenv("GPUSCOPE_ROOT");
    ex->podmap = gs_podmap_new(root ? root : "");
    ex_hostname(ex);
    struct gs_prom_opts po = { .hostname_label = ex->o.hostname_label,
                               .hostname = ex->hostname,
                               .process_cmdline = ex->o.process_cmdline,
                               .podmap = ex->podmap,
                               .virtual_gpus = ex->o.virtual_gpus,
                               .gpu_id_device_name = ex->o.gpu_id_device_name };
    ex->prom = gs_prom_new(&po);
    ex->health = gs_prom_health_new();
    if (!ex->podmap || !ex->prom || !ex->health)
        return gs_err_set(err, GS_E_NOMEM, "out of memory");
    if (ex->o.hpc_job_dir && *ex->o.hpc_job_dir) {
        if (!(ex->jobdir = gs_jobmap_dir_new(ex->o.hpc_job_dir, "gpuscope serve")))
            return gs_err_set(err, GS_E_NOMEM, "out of memory");
        fprintf(stderr, "gpuscope serve: HPC job mapping: hpc_job labels from the files in %s\n",
                ex->o.hpc_job_dir);
    }
    return ex_kube_open(ex, err);
}

static void ex_close(struct gs_exporter *ex)
{
    gs_gen_release(ex->gen);
    gs_kubelet_stop(ex->kubelet);
    for (unsigned i = 0; i < ex->nresnames; i++)
        free(ex->resnames[i]);
    free(ex->resnames);
    gs_prom_free(ex->prom);
    gs_podmap_free(ex->podmap);
    gs_jobmap_dir_free(ex->jobdir);
    gs_snapshot_release(&ex->snap);
    gs_snapshot_release(&ex->down);
    gs_prom_xid_tally_free(&ex->xids);
    gs_prom_health_free(ex->health);
    if (ex->sampler)
        gs_sampler_close(ex->sampler);
    pthread_mutex_destroy(&ex->render_lock);
    pthread_mutex_destroy(&ex->pub_lock);
    pthread_mutex_destroy(&ex->stop_lock);
    pthread_cond_destroy(&ex->stop_cond);
}

static void ex_init(struct gs_exporter *ex, const struct gs_serve_opts *o)
{
    pthread_condattr_t ca;
    memset(ex, 0, sizeof(*ex));
    ex->o = *o;
    gs_snapshot_init(&ex->snap);
    gs_snapshot_init(&ex->down);
    gs_prom_xid_tally_init(&ex->xids);
    pthread_mutex_init(&ex->render_lock, NULL);
    pthread_mutex_init(&ex->pub_lock, NULL);
    pthread_mutex_init(&ex->stop_lock, NULL);
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&ex->stop_cond, &ca);
    pthread_condattr_destroy(&ca);
    ex->start_unix_s = ex_unix_s();
}

/* SIGHUP: read the web config again; a config that cannot be used leaves the
 * current one in force (never a server without the TLS or auth asked for). */
static void ex_reload(struct gs_exporter *ex, struct gs_http *http)
{
    struct gs_webcfg *wc = NULL;
    struct gs_err err = { 0 };
    if (!ex->o.web_config) {
        fprintf(stderr, "gpuscope serve: SIGHUP: no --web.config.file to reload; still serving\n");
        return;
    }
    if (gs_webcfg_load(&wc, ex->o.web_config, &err) < 0 || gs_http_reload(http, wc, &err) < 0) {
        fprintf(stderr, "gpuscope serve: SIGHUP: %s\ngpuscope serve: the web config was not reloaded; still serving "
                        "with the previous one\n",
                err.msg);
        return;
    }
    fprintf(stderr, "gpuscope serve: SIGHUP: reloaded %s%s%s\n", ex->o.web_config,
            gs_webcfg_has_tls(wc) ? ", TLS" : "", gs_webcfg_has_auth(wc) ? ", basic auth" : "");
}

/* Wait for SIGINT or SIGTERM (blocked in every thread, taken here); SIGHUP
 * reloads the web config meanwhile and never stops the exporter. */
static int ex_wait_signal(struct gs_exporter *ex, struct gs_http *http, const sigset_t *set)
{
    int sig = 0;
    for (;;) {
        while (sigwait(set, &sig) != 0)
            ;
        if (sig != SIGHUP)
            return sig;
        ex_reload(ex, http);
    }
}

static int ex_serve(struct gs_exporter *ex, struct gs_webcfg *wc, const sigset_t *set, struct gs_err *err)
{
    struct gs_http *http = NULL;
    unsigned port = 0;
    int rc = ex_open(ex, err);
    if (rc == 0 && ex_tick(ex) < 0)
        rc = gs_err_set(err, GS_E_NOMEM, "out of memory rendering the first sample");
    if (rc < 0) {
        gs_webcfg_free(wc);
        return rc;
    }
    bool tls = gs_webcfg_has_tls(wc), auth = gs_webcfg_has_auth(wc);
    rc = gs_http_start(&http, ex, &ex->o, wc, &port, err); /* takes wc over */
    if (rc < 0)
        return rc;
    fprintf(stderr, "gpuscope serve: listening on %s (port %u), sampling every %u ms%s%s\n",
            ex->o.listen, port, ex->o.interval_ms, tls ? ", TLS" : "", auth ? ", basic auth" : "");
    rc = pthread_create(&ex->thread, NULL, ex_thread, ex);
    if (rc != 0) {
        gs_http_stop(http);
        return gs_err_set(err, GS_E_INTERNAL, "cannot start the sampler thread: %s", strerror(rc));
    }
    int sig = ex_wait_signal(ex, http, set);
    fprintf(stderr, "gpuscope serve: %s, stopping\n", strsignal(sig));
    pthread_mutex_lock(&ex->stop_lock);
    ex->stop = true;
    pthread_cond_signal(&ex->stop_cond);
    pthread_mutex_unlock(&ex->stop_lock);
    pthread_join(ex->thread, NULL);
    gs_http_stop(http);
    return 0;
}

/* Keep a long-running exporter's memory flat and small: one malloc arena for
 * all threads (HTTP threads allocate little; per-thread arenas each kept
 * their own high-water mark), and renderings (hundreds of KiB) in their own
 * mappings, returned to the kernel when a generation is freed. */
static void ex_malloc_tune(void)
{
#ifdef __GLIBC__
    mallopt(M_ARENA_MAX, 1);
    mallopt(M_MMAP_THRESHOLD, 64 * 1024);
#endif
}

int gs_serve_run(const struct gs_serve_opts *o, struct gs_err *err)
{
    struct gs_exporter ex;
    struct gs_webcfg *wc = NULL;
    sigset_t set, old;
    int rc;

    if (o->web_config && (rc = gs_webcfg_load(&wc, o->web_config, err)) < 0)
        return rc;
    ex_malloc_tune();
    /* block the stop signals before any thread exists, so all inherit the mask */
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGHUP);
    pthread_sigmask(SIG_BLOCK, &set, &old);
    signal(SIGPIPE, SIG_IGN);
    ex_init(&ex, o);
    rc = ex_serve(&ex, wc, &set, err); /* the HTTP server owns wc */
    ex_close(&ex);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return rc;
}
