/* SPDX-License-Identifier: MIT */
/*
 * exporter.c - gs_serve_run(): the sampler thread and the generations it
 * publishes (see serve.h). Contents:
 *   1. generations: create, publish (pointer swap under a mutex), acquire, release
 *   2. one tick: sample, count Xids, run the health engine, publish; renderings on first request
 *   3. the sampler thread (ticks on a monotonic deadline; stops at once)
 *   4. gs_serve_run: open, first tick, HTTP, wait for a signal, tear down
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

#include "core/sampler.h"
#include "out/out.h"
#include "serve/pbuf.h"
#include "serve/podmap.h"
#include "serve/prom.h"
#include "serve/webcfg.h"

struct gs_exporter {
    struct gs_serve_opts o;
    struct gs_sampler *sampler;
    struct gs_prom *prom;
    struct gs_podmap *podmap;
    struct gs_snapshot snaps[2];  /* alternate: cur is sampled into, prev kept for NVML failures */
    unsigned cur;
    bool have_good;               /* snaps[cur ^ 1] holds a good snapshot */
    struct gs_prom_self self;
    struct gs_prom_xid_tally xids;     /* Xid events per (GPU, code) since start (sampler thread only) */
    struct gs_prom_health_run *health; /* the health engine (sampler thread only); NULL: out of memory */
    pthread_mutex_t render_lock;  /* guards prom, podmap and the hints: renderers run in HTTP threads */
    size_t text_hint, om_hint;    /* last rendering sizes, to allocate once per rendering */
    char last_err[384];           /* last logged sampler error, to log changes only */
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

static uint64_t ex_mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

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

static void ex_publish(struct gs_exporter *ex, struct gs_gen *g)
{
    pthread_mutex_lock(&ex->pub_lock);
    struct gs_gen *old = ex->gen;
    ex->gen = g;
    ex->tick_mono_ns = ex_mono_ns();
    pthread_mutex_unlock(&ex->pub_lock);
    gs_gen_release(old);
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

const char *gs_gen_metrics(struct gs_exporter *ex, struct gs_gen *g, enum gs_prom_format fmt, size_t *len)
{
    bool om = fmt == GS_PROM_OPENMETRICS;
    char **out = om ? &g->om : &g->text;
    size_t *out_len = om ? &g->om_len : &g->text_len;
    pthread_mutex_lock(&g->lock);
    if (!*out) {
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
    pthread_mutex_unlock(&g->lock);
    *len = *out_len;
    return *out;
}

const char *gs_gen_json(struct gs_gen *g, size_t *len)
{
    pthread_mutex_lock(&g->lock);
    if (!g->json) {
        json_t *doc = gs_json_snapshot(&g->snap);
        if (doc) {
            g->json = json_dumps(doc, JSON_COMPACT);
            g->json_len = g->json ? strlen(g->json) : 0;
            json_decref(doc);
        }
    }
    pthread_mutex_unlock(&g->lock);
    *len = g->json_len;
    return g->json;
}

double gs_exporter_tick_age(struct gs_exporter *ex)
{
    pthread_mutex_lock(&ex->pub_lock);
    uint64_t t = ex->tick_mono_ns;
    pthread_mutex_unlock(&ex->pub_lock);
    return (double)(ex_mono_ns() - t) / 1e9;
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
        g->s.valid = 0;
        memset(g->s.status, GS_ST_ERROR, sizeof(g->s.status));
        g->nprocs = 0;
        g->procs_status = GS_ST_ERROR;
    }
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
    struct gs_snapshot *cur = &ex->snaps[ex->cur];
    uint64_t t0 = ex_mono_ns();
    cur->nevents = 0; /* a failed snapshot must not recount an older tick's events */
    cur->events_dropped = 0;
    int rc = gs_sampler_snapshot(ex->sampler, cur, &err);
    gs_prom_xid_tally_add(&ex->xids, cur);
    ex->self.events_dropped_total = ex->xids.dropped;
    if (ex->health && gs_prom_health_tick(ex->health, cur, rc) == 0)
        ex->self.health = gs_prom_health_list(ex->health, &ex->self.nhealth);
    ex->self.health_on = ex->health != NULL;

    ex->self.sample_duration_s = (double)(ex_mono_ns() - t0) / 1e9;
    ex->self.samples_total++;
    if (rc < 0)
        ex->self.sample_errors_total++;
    ex_log_err(ex, rc, &err);
    if (rc < 0 && rc != -GS_E_GPU_LOST && rc != -GS_E_BACKEND) {
        struct gs_snapshot *prev = &ex->snaps[ex->cur ^ 1];
        ex->self.backend_up = false;
        if (!ex->have_good)
            return cur;  /* nothing known at all: render without GPUs */
        ex_mark_down(prev);
        return prev;
    }
    bool any = false;
    for (uint32_t i = 0; i < cur->ngpus; i++)
        any |= cur->gpus[i].state == GS_GPU_OK;
    ex->self.backend_up = any;
    if (any)
        ex->self.last_sample_unix_s = (double)cur->wall.tv_sec + cur->wall.tv_nsec / 1e9;
    ex->cur ^= 1;  /* cur becomes prev: the next tick samples into the other one */
    ex->have_good = true;
    return cur;
}

/* Publish the snapshot as a new generation; rendering waits for the first request. */
static int ex_tick(struct gs_exporter *ex)
{
    struct gs_snapshot *snap = ex_sample(ex);
    struct gs_gen *g = calloc(1, sizeof(*g));

    if (ex->podmap) {
        pthread_mutex_lock(&ex->render_lock);
        gs_podmap_tick(ex->podmap, ex_mono_ns());
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
    if (!g || gs_snapshot_copy(&g->snap, snap) < 0) {
        if (g) {
            free(g->xids);
            free(g->health);
        }
        free(g);
        fprintf(stderr, "gpuscope serve: out of memory publishing a sample; keeping the previous one\n");
        return -GS_E_NOMEM;
    }
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

static int ex_open(struct gs_exporter *ex, struct gs_err *err)
{
    struct gs_sampler_opts so = GS_SAMPLER_OPTS_INIT;
    so.nvml_lib = ex->o.nvml_lib;
    so.slow = GS_SLOW_THREAD;
    so.slow_interval_ms = ex->o.interval_ms;
    int rc = gs_sampler_open(&ex->sampler, &so, err);
    if (rc < 0)
        return rc;
    const char *root = ex->o.host_root ? ex->o.host_root : getenv("GPUSCOPE_ROOT");
    ex->podmap = gs_podmap_new(root ? root : "");
    ex_hostname(ex);
    struct gs_prom_opts po = { .hostname_label = ex->o.hostname_label,
                               .hostname = ex->hostname,
                               .process_cmdline = ex->o.process_cmdline,
                               .podmap = ex->podmap };
    ex->prom = gs_prom_new(&po);
    ex->health = gs_prom_health_new();
    if (!ex->podmap || !ex->prom || !ex->health)
        return gs_err_set(err, GS_E_NOMEM, "out of memory");
    return 0;
}

static void ex_close(struct gs_exporter *ex)
{
    gs_gen_release(ex->gen);
    gs_prom_free(ex->prom);
    gs_podmap_free(ex->podmap);
    gs_snapshot_release(&ex->snaps[0]);
    gs_snapshot_release(&ex->snaps[1]);
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
    gs_snapshot_init(&ex->snaps[0]);
    gs_snapshot_init(&ex->snaps[1]);
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

/* Wait for SIGINT or SIGTERM (blocked in every thread, taken here). */
static int ex_wait_signal(const sigset_t *set)
{
    int sig = 0;
    while (sigwait(set, &sig) != 0)
        ;
    return sig;
}

static int ex_serve(struct gs_exporter *ex, struct gs_webcfg *wc, const sigset_t *set, struct gs_err *err)
{
    struct gs_http *http = NULL;
    unsigned port = 0;
    int rc = ex_open(ex, err);
    if (rc < 0)
        return rc;
    if (ex_tick(ex) < 0)
        return gs_err_set(err, GS_E_NOMEM, "out of memory rendering the first sample");
    rc = gs_http_start(&http, ex, &ex->o, wc, &port, err);
    if (rc < 0)
        return rc;
    fprintf(stderr, "gpuscope serve: listening on %s (port %u), sampling every %u ms%s%s\n",
            ex->o.listen, port, ex->o.interval_ms, gs_webcfg_has_tls(wc) ? ", TLS" : "",
            gs_webcfg_has_auth(wc) ? ", basic auth" : "");
    rc = pthread_create(&ex->thread, NULL, ex_thread, ex);
    if (rc != 0) {
        gs_http_stop(http);
        return gs_err_set(err, GS_E_INTERNAL, "cannot start the sampler thread: %s", strerror(rc));
    }
    int sig = ex_wait_signal(set);
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
    pthread_sigmask(SIG_BLOCK, &set, &old);
    signal(SIGPIPE, SIG_IGN);
    ex_init(&ex, o);
    rc = ex_serve(&ex, wc, &set, err);
    ex_close(&ex);
    gs_webcfg_free(wc);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return rc;
}
