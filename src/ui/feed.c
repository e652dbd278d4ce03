/* SPDX-License-Identifier: MIT */
/*
 * feed.c - sampler thread + double buffer + self-pipe for `gpuscope top`.
 *
 * Three buffers: the thread owns `work` (the sampler writes into it). After
 * each snapshot it swaps work with `pub` under the mutex and writes one byte to
 * the pipe. The UI swaps pub with its view under the same mutex: no snapshot is
 * ever read while being written, nothing is copied, and neither side waits on
 * the other's NVML calls. The view the UI hands back is stale: its process
 * arrays (the bulk of a snapshot: 8 GPUs x 64 processes are 455 KiB) are
 * freed at once and allocated again, at the size they had, just before the
 * sampler fills that buffer, so only two of the three hold processes at rest.
 *
 * The health engine (src/health/) runs here too, on each snapshot, never on
 * the UI thread: the findings travel with the snapshot they belong to, in
 * three buffers swapped the same way. The engine takes a snapshot and
 * evaluates at most about once a second (at once when the snapshot brings
 * driver events), whatever the refresh interval: its windows are then in
 * seconds as doctor's and watch's are, and a 100 ms refresh stays cheap.
 * Its history is smaller than doctor's (72 evaluations per process for the
 * leak check's minute, 360 per GPU for the idle check's 5 minutes, 640
 * processes) to keep top's memory small.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "health/health.h"
#include "lib/vec.h"
#include "ui/feed.h"

/* Feed and evaluate the engine at most this often (ms); events at once. */
#define FEED_EVAL_MS GS_FEED_EVAL_MS
/* More PIDs on screen than this: all of them every tick. */
#define FEED_FOCUS_MAX 512

struct gs_feed {
    struct gs_sampler *sampler;
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t wake;        /* interval change, pause, kick, stop */
    int pipe_rd, pipe_wr;
    uint32_t interval_ms;
    bool paused, stop, kicked;
    struct gs_snapshot work;    /* thread only */
    struct gs_snapshot pub;     /* under lock */
    uint64_t pub_seq, taken_seq;
    int pub_rc;
    struct gs_err pub_err;
    struct gs_health *health;   /* thread only; NULL: out of memory, no findings */
    struct gs_findings cur;     /* thread only: the latest evaluation */
    struct gs_findings work_f;  /* thread only: published with work */
    struct gs_findings pub_f;   /* under lock, with pub */
    uint32_t focus[FEED_FOCUS_MAX]; /* under lock: the PIDs on screen */
    uint32_t nfocus;
    bool focus_all, focus_new;  /* under lock */
    uint32_t *procs_hint;       /* under lock: process count per GPU of the shed buffer */
    size_t nhint;               /* GPUs in procs_hint */
    size_t hint_cap;
    uint64_t first_ns;          /* the first snapshot's monotonic time */
    int64_t eval_ms;            /* engine time of the latest evaluation, -1: none */
};

static int findings_copy(struct gs_findings *dst, const struct gs_findings *src)
{
    if (src->n > dst->cap) { /* (none to copy: nothing allocated) */
        struct gs_finding *v = gs_vec_grow(dst->v, &dst->cap, src->n, sizeof(*v));
        if (!v)
            return -1;
        dst->v = v;
    }
    if (src->n)
        memcpy(dst->v, src->v, src->n * sizeof(*src->v));
    dst->n = src->n;
    dst->lost = src->lost;
    return 0;
}

/* Feed the engine this snapshot; evaluate when due; the findings go with it. */
static void feed_health(struct gs_feed *f, int rc)
{
    const struct gs_snapshot *snap = &f->work;
    if (!f->health)
        return;
    if (rc == 0 || rc == -GS_E_GPU_LOST || rc == -GS_E_BACKEND) {
        if (!f->first_ns)
            f->first_ns = snap->mono_ns ? snap->mono_ns : 1;
        int64_t t_ms = (int64_t)((snap->mono_ns - f->first_ns) / 1000000ull);
        if (f->eval_ms < 0 || t_ms - f->eval_ms >= FEED_EVAL_MS || snap->nevents) {
            gs_health_add(f->health, snap, t_ms);
            gs_health_eval(f->health, &f->cur);
            f->eval_ms = t_ms;
        }
    }
    if (findings_copy(&f->work_f, &f->cur) < 0) {
        f->work_f.lost = f->cur.n + f->cur.lost; /* top says how many it cannot show */
        f->work_f.n = 0;
    }
}


static void feed_publish(struct gs_feed *f, int rc, const struct gs_err *err)
{
    char byte = 1;

    /* Swap, never copy: the thread's next work buffer is whatever was published
     * before (the UI's previous view once it took one); the sampler rewrites it
     * whole and keeps its arrays, so a tick allocates and copies nothing. */
    pthread_mutex_lock(&f->lock);
    struct gs_snapshot tmp = f->pub;
    f->pub = f->work;
    f->work = tmp;
    struct gs_findings tf = f->pub_f;
    f->pub_f = f->work_f;
    f->work_f = tf;
    f->pub_seq++;
    f->pub_rc = rc;
    f->pub_err = *err;
    pthread_mutex_unlock(&f->lock);
    if (write(f->pipe_wr, &byte, 1) < 0 && errno != EAGAIN) {
        /* the UI drains the pipe; a full pipe already means "wake up" */
    }
}

/* Wait until the next tick is due (or a kick/stop); returns false on stop. */
static bool feed_wait(struct gs_feed *f, const struct timespec *start)
{
    pthread_mutex_lock(&f->lock);
    for (;;) {
        if (f->stop)
            break;
        if (f->kicked && !f->paused)
            break;
        struct timespec due = *start;
        uint32_t ms = f->interval_ms;
        due.tv_sec += ms / 1000;
        due.tv_nsec += (long)(ms % 1000) * 1000000L;
        if (due.tv_nsec >= 1000000000L) {
            due.tv_sec++;
            due.tv_nsec -= 1000000000L;
        }
        int rc = f->paused ? pthread_cond_wait(&f->wake, &f->lock)
                           : pthread_cond_timedwait(&f->wake, &f->lock, &due);
        if (rc == ETIMEDOUT && !f->paused)
            break;
    }
    bool go = !f->stop;
    f->kicked = false;
    pthread_mutex_unlock(&f->lock);
    return go;
}

/* Hand the UI's latest focus to the sampler (on this thread, which owns it). */
static void feed_apply_focus(struct gs_feed *f)
{
    uint32_t pids[FEED_FOCUS_MAX], n = 0;
    bool all = true, apply;

    pthread_mutex_lock(&f->lock);
    apply = f->focus_new;
    if (apply) {
        all = f->focus_all;
        n = f->nfocus;
        memcpy(pids, f->focus, n * sizeof(*pids));
        f->focus_new = false;
    }
    pthread_mutex_unlock(&f->lock);
    if (apply)
        gs_sampler_host_focus(f->sampler, all ? NULL : pids, n);
}

void gs_feed_set_focus(struct gs_feed *f, const uint32_t *pids, uint32_t n, bool all)
{
    pthread_mutex_lock(&f->lock);
    f->focus_all = all || n > FEED_FOCUS_MAX;
    f->nfocus = f->focus_all ? 0 : n;
    if (f->nfocus)
        memcpy(f->focus, pids, f->nfocus * sizeof(*pids));
    f->focus_new = true;
    pthread_mutex_unlock(&f->lock);
}

/* The stale buffer gives its process arrays back (UI thread, under the
 * lock), remembering how many processes each GPU had. */
static void feed_shed(struct gs_feed *f, struct gs_snapshot *stale)
{
    uint32_t *h = gs_vec_grow(f->procs_hint, &f->hint_cap, stale->ngpus, sizeof(*h));
    if (!h)
        return; /* keep the arrays: no memory saved, nothing lost */
    f->procs_hint = h;
    if (f->nhint < stale->ngpus)
        f->nhint = stale->ngpus;
    for (uint32_t i = 0; i < stale->ngpus; i++) {
        struct gs_gpu *g = &stale->gpus[i];
        f->procs_hint[i] = g->nprocs;
        free(g->procs);
        g->procs = NULL;
        g->nprocs = g->procs_cap = 0;
    }
}

/* Before the sampler fills work: a shed buffer gets its process arrays back
 * at the size they had, so that filling it grows nothing (sampler thread). */
static void feed_presize(struct gs_feed *f)
{
    pthread_mutex_lock(&f->lock);
    for (uint32_t i = 0; i < f->work.ngpus && i < f->nhint; i++) {
        struct gs_gpu *g = &f->work.gpus[i];
        if (!g->procs && f->procs_hint[i]) {
            g->procs = malloc(f->procs_hint[i] * sizeof(*g->procs));
            g->procs_cap = g->procs ? f->procs_hint[i] : 0;
        }
    }
    pthread_mutex_unlock(&f->lock);
}

static void *feed_main(void *arg)
{
    struct gs_feed *f = arg;
    struct timespec start;

    do {
        struct gs_err err = { 0 };
        clock_gettime(CLOCK_MONOTONIC, &start);
        feed_apply_focus(f);
        feed_presize(f);
        int rc = gs_sampler_snapshot(f->sampler, &f->work, &err);
        feed_health(f, rc);
        feed_publish(f, rc, &err);
    } while (feed_wait(f, &start));
    return NULL;
}

static int feed_init_sync(struct gs_feed *f)
{
    pthread_condattr_t ca;

    if (pthread_condattr_init(&ca))
        return -1;
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    int rc = pthread_cond_init(&f->wake, &ca);
    pthread_condattr_destroy(&ca);
    if (rc)
        return -1;
    pthread_mutex_init(&f->lock, NULL);
    int fds[2];
    if (pipe2(fds, O_CLOEXEC | O_NONBLOCK) < 0)
        return -1;
    f->pipe_rd = fds[0];
    f->pipe_wr = fds[1];
    return 0;
}

void gs_feed_health_cfg(struct gs_health_cfg *hc)
{
    gs_health_cfg_default(hc);
    hc->recent_s = 60; /* badges follow the last minute, as watch's alerts do */
    /* the idle-memory check needs idle_min_s (300 s) of history: 360
     * evaluations at least 0.9 s apart span 323 s (300 ended at 269 s) */
    hc->ring_samples = 360;
    hc->proc_ring_samples = 72; /* the leak check needs 60 s: 72 evaluations >= 0.9 s apart */
    hc->max_procs = 640;
}

int gs_feed_start(struct gs_feed **out, struct gs_sampler *s, uint32_t interval_ms,
                  struct gs_err *err)
{
    struct gs_feed *f = calloc(1, sizeof(*f));
    sigset_t all, old;

    if (!f)
        return gs_err_set(err, GS_E_NOMEM, "out of memory starting the sampler thread");
    f->sampler = s;
    f->interval_ms = interval_ms;
    struct gs_health_cfg hc;
    gs_feed_health_cfg(&hc);
    f->health = gs_health_new(&hc);
    f->eval_ms = -1;
    if (feed_init_sync(f) < 0) {
        gs_health_free(f->health);
        free(f);
        return gs_err_set(err, GS_E_INTERNAL, "cannot set up the sampler thread: %s",
                          strerror(errno));
    }
    /* Signals (SIGWINCH, SIGINT...) go to the UI thread, never to this one. */
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    int rc = pthread_create(&f->thread, NULL, feed_main, f);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc) {
        close(f->pipe_rd);
        close(f->pipe_wr);
        gs_health_free(f->health);
        free(f);
        return gs_err_set(err, GS_E_INTERNAL, "cannot start the sampler thread: %s", strerror(rc));
    }
    *out = f;
    return 0;
}

int gs_feed_fd(const struct gs_feed *f)
{
    return f->pipe_rd;
}

void gs_feed_drain(struct gs_feed *f)
{
    char buf[64];

    while (read(f->pipe_rd, buf, sizeof(buf)) > 0) {
    }
}

int gs_feed_take(struct gs_feed *f, struct gs_snapshot *view, struct gs_findings *findings, int *rc,
                 struct gs_err *err)
{
    int got = 0;

    gs_feed_drain(f);
    pthread_mutex_lock(&f->lock);
    if (f->pub_seq != f->taken_seq) {
        struct gs_snapshot tmp = *view;
        *view = f->pub;
        f->pub = tmp;
        feed_shed(f, &f->pub);
        struct gs_findings tf = *findings;
        *findings = f->pub_f;
        f->pub_f = tf;
        f->taken_seq = f->pub_seq;
        *rc = f->pub_rc;
        *err = f->pub_err;
        got = 1;
    }
    pthread_mutex_unlock(&f->lock);
    return got;
}

static void feed_poke(struct gs_feed *f, void (*set)(struct gs_feed *, uint32_t), uint32_t v)
{
    pthread_mutex_lock(&f->lock);
    set(f, v);
    pthread_cond_signal(&f->wake);
    pthread_mutex_unlock(&f->lock);
}

static void set_interval(struct gs_feed *f, uint32_t v) { f->interval_ms = v; }
static void set_paused(struct gs_feed *f, uint32_t v) { f->paused = v; f->kicked = !v; }
static void set_kick(struct gs_feed *f, uint32_t v) { f->kicked = v; }
static void set_stop(struct gs_feed *f, uint32_t v) { f->stop = v; }

void gs_feed_set_interval(struct gs_feed *f, uint32_t interval_ms)
{
    feed_poke(f, set_interval, interval_ms);
}

void gs_feed_set_paused(struct gs_feed *f, bool paused)
{
    feed_poke(f, set_paused, paused);
}

void gs_feed_kick(struct gs_feed *f)
{
    feed_poke(f, set_kick, 1);
}

void gs_feed_stop(struct gs_feed *f)
{
    if (!f)
        return;
    feed_poke(f, set_stop, 1);
    pthread_join(f->thread, NULL);
    gs_sampler_close(f->sampler);
    gs_snapshot_release(&f->work);
    gs_snapshot_release(&f->pub);
    free(f->procs_hint);
    gs_health_free(f->health);
    gs_findings_free(&f->cur);
    gs_findings_free(&f->work_f);
    gs_findings_free(&f->pub_f);
    close(f->pipe_rd);
    close(f->pipe_wr);
    pthread_cond_destroy(&f->wake);
    pthread_mutex_destroy(&f->lock);
    free(f);
}
