/* SPDX-License-Identifier: MIT */
/*
 * kubelet.c - the refresher: a thread that calls List on the kubelet's socket
 * every interval (each call bounded by its timeout), keeps the last map that
 * was read, and publishes it with its age and the calls' health under a mutex
 * held only to copy a pointer and a few counters. When the socket is absent
 * nothing is called and nothing is logged unless it was asked for by name;
 * when the kubelet restarts or stalls, the last good map stays in use.
 */
#include "k8s/kubelet.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>

#include "lib/clock.h"

struct gs_kubelet {
    struct gs_kubelet_opts o;
    char path[108];                /* sizeof sun_path */
    pthread_t thread;
    atomic_bool stop;
    pthread_mutex_t lock;          /* guards st, first_done */
    pthread_cond_t cond;           /* CLOCK_MONOTONIC; stop and first_done */
    struct gs_kubelet_status st;   /* st.map holds the refresher's own reference */
    bool first_done;
    char last_log[640];            /* refresher thread only: log changes, not every failure */
};

static double kl_thread_cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Log msg once until it changes ("" = healthy again). */
static void kl_log(struct gs_kubelet *k, const char *msg, const char *hint)
{
    if (!strcmp(k->last_log, msg))
        return;
    if (msg[0])
        fprintf(stderr, "gpuscope serve: kubelet pod-resources: %s%s%s\n", msg, hint && hint[0] ? "\n  hint: " : "",
                hint ? hint : "");
    else if (k->last_log[0])
        fprintf(stderr, "gpuscope serve: kubelet pod-resources: %s answers; pod labels come from the kubelet\n", k->path);
    snprintf(k->last_log, sizeof(k->last_log), "%s", msg);
}

/* The socket is not there: keep whatever map we had. */
static void kl_absent(struct gs_kubelet *k)
{
    char msg[640];
    pthread_mutex_lock(&k->lock);
    bool seen = k->st.seen, have = k->st.map != NULL;
    k->st.present = false;
    k->st.up = false;
    if (k->o.required)
        k->st.errors++;
    pthread_mutex_unlock(&k->lock);
    if (!seen)
        return; /* not a Kubernetes node (or not yet): pods come from processes */
    snprintf(msg, sizeof(msg), "%s is absent%s", k->path,
             have ? "; keeping the last pod map" : "; pod labels come from processes");
    kl_log(k, msg, k->o.required && !have ? "mount the kubelet's pod-resources directory (read-only hostPath)"
                                          : NULL);
}

static void kl_refresh(struct gs_kubelet *k)
{
    struct stat sb;
    struct gs_err err = { 0 };
    struct gs_k8s_map *map = NULL, *old = NULL;

    if (stat(k->path, &sb) < 0 && errno == ENOENT) {
        kl_absent(k);
        return;
    }
    pthread_mutex_lock(&k->lock);
    k->st.seen = k->st.present = true;
    pthread_mutex_unlock(&k->lock);

    uint64_t t0 = gs_clock_mono_ns();
    int rc = gs_kubelet_list(k->path, k->o.timeout_ms, &k->o.map, &k->stop, &map, &err);
    double dt = (double)(gs_clock_mono_ns() - t0) / 1e9;

    pthread_mutex_lock(&k->lock);
    k->st.refreshes++;
    k->st.last_duration_s = dt;
    k->st.up = rc == 0;
    if (rc == 0) {
        old = k->st.map;
        k->st.map = map;
        k->st.map_mono_ns = t0;
    } else {
        k->st.errors++;
    }
    bool have = k->st.map != NULL;
    pthread_mutex_unlock(&k->lock);
    gs_k8s_map_unref(old);
    if (rc == 0 || atomic_load(&k->stop)) {
        kl_log(k, "", NULL);
        return;
    }
    char msg[640];
    snprintf(msg, sizeof(msg), "%s%s", err.msg,
             have ? "; keeping the last pod map" : "; pod labels come from processes meanwhile");
    kl_log(k, msg, err.hint);
}

static void *kl_thread(void *arg)
{
    struct gs_kubelet *k = arg;
    struct timespec next;
    clock_gettime(CLOCK_MONOTONIC, &next);
    while (!atomic_load(&k->stop)) {
        double c0 = kl_thread_cpu_s();
        kl_refresh(k);
        double c1 = kl_thread_cpu_s();
        uint64_t ns = (uint64_t)next.tv_nsec + (uint64_t)k->o.interval_ms * 1000000ull;
        next.tv_sec += (time_t)(ns / 1000000000ull);
        next.tv_nsec = (long)(ns % 1000000000ull);
        struct timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now);
        if (now.tv_sec > next.tv_sec || (now.tv_sec == next.tv_sec && now.tv_nsec > next.tv_nsec))
            next = now; /* a call took longer than the interval: start the next one now, not a burst */
        pthread_mutex_lock(&k->lock);
        k->st.cpu_s += c1 - c0;
        k->first_done = true;
        pthread_cond_broadcast(&k->cond);
        while (!atomic_load(&k->stop) && pthread_cond_timedwait(&k->cond, &k->lock, &next) != ETIMEDOUT)
            ;
        pthread_mutex_unlock(&k->lock);
    }
    return NULL;
}

int gs_kubelet_start(struct gs_kubelet **out, const struct gs_kubelet_opts *o, struct gs_err *err)
{
    pthread_condattr_t ca;
    *out = NULL;
    if (!o->socket || !o->socket[0] || strlen(o->socket) >= sizeof(((struct sockaddr_un *)0)->sun_path))
        return gs_err_set(err, GS_E_USAGE, "the kubelet's socket path '%.60s' is empty or too long for a UNIX socket",
                          o->socket ? o->socket : "");
    struct gs_kubelet *k = calloc(1, sizeof(*k));
    if (!k)
        return gs_err_set(err, GS_E_NOMEM, "out of memory");
    k->o = *o;
    snprintf(k->path, sizeof(k->path), "%s", o->socket);
    k->o.socket = k->path;
    k->st.seen = o->required;
    atomic_init(&k->stop, false);
    pthread_mutex_init(&k->lock, NULL);
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&k->cond, &ca);
    pthread_condattr_destroy(&ca);
    int rc = pthread_create(&k->thread, NULL, kl_thread, k);
    if (rc != 0) {
        pthread_cond_destroy(&k->cond);
        pthread_mutex_destroy(&k->lock);
        free(k);
        return gs_err_set(err, GS_E_INTERNAL, "cannot start the kubelet refresher thread: %s", strerror(rc));
    }
    *out = k;
    return 0;
}

void gs_kubelet_wait_first(struct gs_kubelet *k, uint32_t ms)
{
    struct timespec until;
    clock_gettime(CLOCK_MONOTONIC, &until);
    uint64_t ns = (uint64_t)until.tv_nsec + (uint64_t)ms * 1000000ull;
    until.tv_sec += (time_t)(ns / 1000000000ull);
    until.tv_nsec = (long)(ns % 1000000000ull);
    pthread_mutex_lock(&k->lock);
    while (!k->first_done && pthread_cond_timedwait(&k->cond, &k->lock, &until) != ETIMEDOUT)
        ;
    pthread_mutex_unlock(&k->lock);
}

void gs_kubelet_status(struct gs_kubelet *k, struct gs_kubelet_status *st)
{
    pthread_mutex_lock(&k->lock);
    *st = k->st;
    if (st->map)
        gs_k8s_map_ref(st->map);
    pthread_mutex_unlock(&k->lock);
}

void gs_kubelet_stop(struct gs_kubelet *k)
{
    if (!k)
        return;
    pthread_mutex_lock(&k->lock);
    atomic_store(&k->stop, true);
    pthread_cond_broadcast(&k->cond);
    pthread_mutex_unlock(&k->lock);
    pthread_join(k->thread, NULL);
    gs_k8s_map_unref(k->st.map);
    pthread_cond_destroy(&k->cond);
    pthread_mutex_destroy(&k->lock);
    free(k);
}
