/* SPDX-License-Identifier: MIT */
/*
 * fleet_feed.c - the query thread of `top --prometheus`: one refresh per
 * period (the server's scrape interval), published by swapping a pointer
 * under a mutex and a byte on a self-pipe, so the UI never waits on HTTP.
 * The UI says which node and GPU it shows; the next refresh reads them too
 * (at once: a focus change wakes the thread).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ui/fleet.h"

struct gs_fleet_feed {
    pthread_t th;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int pipe[2];
    struct gs_fleet_src src;
    double period_s;
    bool stop, paused, kick;
    char focus_host[GS_FLEET_NAME];
    int focus_gpu;
    struct gs_fleet_snap last;    /* the thread's: the previous refresh (lost nodes) */
    struct gs_fleet_snap pub;     /* published, not yet taken */
    bool have_pub;
};

static void wait_period(struct gs_fleet_feed *f)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    double s = f->period_s;
    ts.tv_sec += (time_t)s;
    ts.tv_nsec += (long)((s - (double)(time_t)s) * 1e9);
    if (ts.tv_nsec >= 1000000000L) {
        ts.tv_sec++;
        ts.tv_nsec -= 1000000000L;
    }
    while (!f->stop && !f->kick) {
        if (f->paused)
            pthread_cond_wait(&f->cv, &f->mu);
        else if (pthread_cond_timedwait(&f->cv, &f->mu, &ts) == ETIMEDOUT)
            break;
    }
    f->kick = false;
}

/* A refresh that failed as a whole keeps the last nodes on screen, with the error. */
static void refresh(struct gs_fleet_feed *f, const char *host, int gpu)
{
    struct gs_fleet_snap cur = { 0 }, copy;
    struct gs_err err = { 0 };
    if (gs_fleet_fetch(&f->src, &f->last, host, gpu, &cur, &err) < 0) {
        gs_fleet_snap_free(&cur);
        if (gs_fleet_snap_copy(&cur, &f->last) < 0)
            return;
        cur.err = err;
        cur.failed = gs_fleet_node_queries();
    } else {
        gs_fleet_snap_free(&f->last);
        if (gs_fleet_snap_copy(&f->last, &cur) < 0)
            memset(&f->last, 0, sizeof(f->last));
    }
    copy = cur;
    pthread_mutex_lock(&f->mu);
    gs_fleet_snap_free(&f->pub);
    f->pub = copy;
    f->have_pub = true;
    pthread_mutex_unlock(&f->mu);
    char b = 1;
    if (write(f->pipe[1], &b, 1) < 0) { /* full pipe: a wake-up is pending anyway */
    }
}

static void *feed_main(void *arg)
{
    struct gs_fleet_feed *f = arg;
    char host[GS_FLEET_NAME];
    pthread_mutex_lock(&f->mu);
    for (;;) {
        wait_period(f);
        if (f->stop)
            break;
        if (f->paused)
            continue;
        memcpy(host, f->focus_host, sizeof(host));
        int gpu = f->focus_gpu;
        pthread_mutex_unlock(&f->mu);
        refresh(f, host, gpu);
        pthread_mutex_lock(&f->mu);
    }
    pthread_mutex_unlock(&f->mu);
    return NULL;
}

int gs_fleet_feed_start(struct gs_fleet_feed **out, struct gs_fleet_src *src, const struct gs_fleet_snap *first,
                        double period_s, struct gs_err *err)
{
    struct gs_fleet_feed *f = calloc(1, sizeof(*f));
    if (!f)
        return gs_err_set(err, GS_E_NOMEM, "out of memory starting the fleet feed");
    if (pipe2(f->pipe, O_NONBLOCK | O_CLOEXEC) < 0) {
        free(f);
        return gs_err_set(err, GS_E_IO, "cannot make the fleet feed's pipe: %s", strerror(errno));
    }
    pthread_mutex_init(&f->mu, NULL);
    pthread_cond_init(&f->cv, NULL);
    f->src = *src;
    f->period_s = period_s;
    f->focus_gpu = -1;
    if (gs_fleet_snap_copy(&f->last, first) < 0)
        memset(&f->last, 0, sizeof(f->last)); /* lost nodes are then known from the next refresh on */
    int rc = pthread_create(&f->th, NULL, feed_main, f);
    if (rc) {
        close(f->pipe[0]);
        close(f->pipe[1]);
        gs_fleet_snap_free(&f->last);
        free(f);
        return gs_err_set(err, GS_E_INTERNAL, "cannot start the fleet feed thread: %s", strerror(rc));
    }
    memset(src, 0, sizeof(*src));
    *out = f;
    return 0;
}

int gs_fleet_feed_fd(const struct gs_fleet_feed *f)
{
    return f->pipe[0];
}

int gs_fleet_feed_take(struct gs_fleet_feed *f, struct gs_fleet_snap *view)
{
    char b[64];
    while (read(f->pipe[0], b, sizeof(b)) > 0) {
    }
    pthread_mutex_lock(&f->mu);
    bool have = f->have_pub;
    if (have) {
        gs_fleet_snap_free(view);
        *view = f->pub;
        memset(&f->pub, 0, sizeof(f->pub));
        f->have_pub = false;
    }
    pthread_mutex_unlock(&f->mu);
    return have;
}

void gs_fleet_feed_focus(struct gs_fleet_feed *f, const char *host, int gpu)
{
    pthread_mutex_lock(&f->mu);
    snprintf(f->focus_host, sizeof(f->focus_host), "%s", host ? host : "");
    f->focus_gpu = gpu;
    f->kick = true;
    pthread_cond_signal(&f->cv);
    pthread_mutex_unlock(&f->mu);
}

void gs_fleet_feed_pause(struct gs_fleet_feed *f, bool paused)
{
    pthread_mutex_lock(&f->mu);
    f->paused = paused;
    f->kick = !paused;
    pthread_cond_signal(&f->cv);
    pthread_mutex_unlock(&f->mu);
}

void gs_fleet_feed_stop(struct gs_fleet_feed *f)
{
    if (!f)
        return;
    atomic_store(&f->src.cancel, true); /* a refresh in flight ends after its current request */
    pthread_mutex_lock(&f->mu);
    f->stop = true;
    pthread_cond_signal(&f->cv);
    pthread_mutex_unlock(&f->mu);
    pthread_join(f->th, NULL);
    close(f->pipe[0]);
    close(f->pipe[1]);
    gs_fleet_snap_free(&f->last);
    gs_fleet_snap_free(&f->pub);
    gs_fleet_src_close(&f->src);
    pthread_mutex_destroy(&f->mu);
    pthread_cond_destroy(&f->cv);
    free(f);
}
