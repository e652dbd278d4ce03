/* SPDX-License-Identifier: MIT */
/* slow.c - the slow-field worker thread (see slow.h for why it exists). */
#include "core/slow.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/clock.h"

struct gs_slow_slot {
    bool have;               /* refreshed at least once */
    bool retired;            /* the snapshot's own tick gives them now: not refreshed any more */
    uint64_t taken_ns;       /* CLOCK_MONOTONIC of the refresh */
    struct gs_sample s;      /* only the slow fields are meaningful */
};

struct gs_slow {
    const struct gs_backend *be;
    struct gs_bdev *const *devs;
    uint32_t n;
    struct gs_fmask fields;
    uint32_t interval_ms;
    pthread_t thread;
    pthread_mutex_t lock;    /* guards slots[] and stop; never held across a backend call */
    pthread_cond_t wake;     /* signalled to stop */
    bool stop;
    struct gs_gpu scratch;   /* worker-only */
    struct gs_slow_slot *slots;
};

static void gs_slow_refresh(struct gs_slow *sl)
{
    int (*sample)(struct gs_bdev *, struct gs_fmask, struct gs_gpu *) =
        sl->be->sample_slow ? sl->be->sample_slow : sl->be->sample;

    for (uint32_t i = 0; i < sl->n; i++) {
        pthread_mutex_lock(&sl->lock);
        bool retired = sl->slots[i].retired;
        pthread_mutex_unlock(&sl->lock);
        if (retired)
            continue;
        sample(sl->devs[i], sl->fields, &sl->scratch);
        pthread_mutex_lock(&sl->lock);
        sl->slots[i].s = sl->scratch.s;
        sl->slots[i].taken_ns = gs_clock_mono_ns();
        sl->slots[i].have = true;
        pthread_mutex_unlock(&sl->lock);
    }
}

/* Sleep interval_ms unless told to stop; true when stopping. */
static bool gs_slow_wait(struct gs_slow *sl)
{
    struct timespec until;
    bool stop;

    clock_gettime(CLOCK_MONOTONIC, &until);
    until.tv_sec += sl->interval_ms / 1000;
    until.tv_nsec += (long)(sl->interval_ms % 1000) * 1000000L;
    if (until.tv_nsec >= 1000000000L) {
        until.tv_sec++;
        until.tv_nsec -= 1000000000L;
    }
    pthread_mutex_lock(&sl->lock);
    while (!sl->stop && pthread_cond_timedwait(&sl->wake, &sl->lock, &until) == 0)
        ;
    stop = sl->stop;
    pthread_mutex_unlock(&sl->lock);
    return stop;
}

static void *gs_slow_main(void *arg)
{
    struct gs_slow *sl = arg;

    do {
        gs_slow_refresh(sl);
    } while (!gs_slow_wait(sl));
    return NULL;
}

static int gs_slow_sync_init(struct gs_slow *sl)
{
    pthread_condattr_t ca;

    if (pthread_mutex_init(&sl->lock, NULL) != 0)
        return -1;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    if (pthread_cond_init(&sl->wake, &ca) != 0) {
        pthread_condattr_destroy(&ca);
        pthread_mutex_destroy(&sl->lock);
        return -1;
    }
    pthread_condattr_destroy(&ca);
    return 0;
}

int gs_slow_start(struct gs_slow **out, const struct gs_backend *be, struct gs_bdev *const *devs,
                  uint32_t n, struct gs_fmask fields, uint32_t interval_ms)
{
    struct gs_slow *sl = calloc(1, sizeof(*sl));

    *out = NULL;
    if (!sl)
        return -GS_E_NOMEM;
    sl->slots = calloc(n ? n : 1, sizeof(*sl->slots));
    if (!sl->slots)
        goto out_free;
    sl->be = be;
    sl->devs = devs;
    sl->n = n;
    sl->fields = fields;
    sl->interval_ms = interval_ms ? interval_ms : 1000;
    if (gs_slow_sync_init(sl) < 0)
        goto out_free;
    if (pthread_create(&sl->thread, NULL, gs_slow_main, sl) != 0)
        goto out_sync;
    *out = sl;
    return 0;

out_sync:
    pthread_cond_destroy(&sl->wake);
    pthread_mutex_destroy(&sl->lock);
out_free:
    free(sl->slots);
    free(sl);
    return -GS_E_INTERNAL;
}

void gs_slow_copy(struct gs_slow *sl, uint32_t i, struct gs_sample *dst, uint64_t now_ns)
{
    pthread_mutex_lock(&sl->lock);
    const struct gs_slow_slot *slot = &sl->slots[i];
    GS_FMASK_FOREACH(f, sl->fields)
        gs_sample_mark(dst, (enum gs_field)f,
                       slot->have ? (enum gs_status)slot->s.status[f] : GS_ST_NOT_AVAILABLE);
    dst->pcie_tx_kbps = slot->s.pcie_tx_kbps;
    dst->pcie_rx_kbps = slot->s.pcie_rx_kbps;
    dst->pcie_rate_age_ns = slot->have && now_ns > slot->taken_ns ? now_ns - slot->taken_ns : 0;
    GS_FMASK_FOREACH(f, sl->fields)
        if (f < GS_F_COUNT)
            dst->age_ms[f] = (uint32_t)(dst->pcie_rate_age_ns / 1000000u);
    pthread_mutex_unlock(&sl->lock);
}

bool gs_slow_retire(struct gs_slow *sl, uint32_t i, bool retire)
{
    pthread_mutex_lock(&sl->lock);
    if (retire)
        sl->slots[i].retired = true;
    bool retired = sl->slots[i].retired;
    pthread_mutex_unlock(&sl->lock);
    return retired;
}

void gs_slow_stop(struct gs_slow *sl)
{
    if (!sl)
        return;
    pthread_mutex_lock(&sl->lock);
    sl->stop = true;
    pthread_cond_signal(&sl->wake);
    pthread_mutex_unlock(&sl->lock);
    pthread_join(sl->thread, NULL);
    pthread_cond_destroy(&sl->wake);
    pthread_mutex_destroy(&sl->lock);
    free(sl->slots);
    free(sl);
}
