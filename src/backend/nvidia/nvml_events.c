/* SPDX-License-Identifier: MIT */
/*
 * nvml_events.c - Xid and ECC events through NVML's event API: one event set
 * for all GPUs, registered on the first poll, drained without waiting once
 * per snapshot (nvmlEventSetWait with a 0 ms timeout returns TIMEOUT as soon
 * as the queue is empty), so a tick costs one call when nothing happened.
 * Each event also tells the read schedule (nvml_sched.c) to re-read, at the
 * next tick, the slow-changing readings it may have changed. P-state events,
 * where the GPU has them, only do that: the P-state is read when one says it
 * changed (and once a read period), not at every tick; they are not passed on.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backend/nvidia/nvml_priv.h"
#include "lib/clock.h"

#define NVML_EVENTS_WANTED                                                                   \
    (NVML_EVENT_TYPE_XID_CRITICAL | NVML_EVENT_TYPE_SINGLE_BIT_ECC | NVML_EVENT_TYPE_DOUBLE_BIT_ECC | \
     NVML_EVENT_TYPE_PSTATE)
#define NVML_EVENTS_MAX_DRAIN 4096 /* bound one drain even if the driver floods us */

/* Register one GPU for the event types it supports; a GPU that cannot
 * (NOT_SUPPORTED, no permission, lost) simply has no events. */
static void nvml_events_register(struct nvml_ctx *ctx, struct nvml_device *d)
{
    const struct nvml_fns *f = &ctx->lib.f;
    unsigned long long types = 0;

    if (d->open_rc != NVML_SUCCESS || atomic_load(&d->lost))
        return;
    if (f->supported_event_types(d->handle, &types) != NVML_SUCCESS)
        return;
    types &= NVML_EVENTS_WANTED;
    if (types && f->register_events(d->handle, types, ctx->events) == NVML_SUCCESS) {
        d->events_on = true;
        d->pstate_events = (types & NVML_EVENT_TYPE_PSTATE) != 0;
    }
}

void gs_nvml_events_reregister(struct nvml_ctx *ctx, struct nvml_device *d)
{
    if (ctx->events && !d->events_on)
        nvml_events_register(ctx, d);
}

static void nvml_events_open(struct nvml_ctx *ctx)
{
    const struct nvml_fns *f = &ctx->lib.f;

    ctx->events_tried = true;
    if (!f->event_set_create || !f->supported_event_types || !f->register_events ||
        !f->event_set_wait || !f->event_set_free)
        return;
    if (f->event_set_create(&ctx->events) != NVML_SUCCESS) {
        ctx->events = NULL;
        return;
    }
    for (uint32_t i = 0; i < ctx->ndev; i++)
        nvml_events_register(ctx, &ctx->devs[i]);
}

void gs_nvml_events_close(struct nvml_ctx *ctx)
{
    if (ctx->events && ctx->lib.f.event_set_free)
        ctx->lib.f.event_set_free(ctx->events);
    ctx->events = NULL;
}

/* Which of our GPUs an event's handle belongs to, or -1. */
static int nvml_events_gpu(const struct nvml_ctx *ctx, nvmlDevice_t handle)
{
    for (uint32_t i = 0; i < ctx->ndev; i++)
        if (ctx->devs[i].handle == handle)
            return (int)i;
    return -1;
}

static uint32_t nvml_events_kind(unsigned long long type)
{
    if (type & NVML_EVENT_TYPE_XID_CRITICAL)
        return GS_EV_XID;
    if (type & NVML_EVENT_TYPE_DOUBLE_BIT_ECC)
        return GS_EV_ECC_DBE;
    if (type & NVML_EVENT_TYPE_SINGLE_BIT_ECC)
        return GS_EV_ECC_SBE;
    return GS_EV_OTHER;
}

int gs_nvml_events(struct gs_bctx *bctx, struct gs_event *out, uint32_t max, uint32_t *dropped)
{
    struct nvml_ctx *ctx = (struct nvml_ctx *)bctx;
    uint32_t n = 0;

    *dropped = 0;
    if (!ctx->events_tried)
        nvml_events_open(ctx);
    if (!ctx->events)
        return 0;
    for (int k = 0; k < NVML_EVENTS_MAX_DRAIN; k++) {
        nvmlEventData_t data;
        memset(&data, 0, sizeof(data));
        nvmlReturn_t r = ctx->lib.f.event_set_wait(ctx->events, &data, 0);
        if (r != NVML_SUCCESS) {
            ctx->drain_seq += r == NVML_ERROR_TIMEOUT; /* empty: every change so far is seen */
            break; /* anything else: try again next tick */
        }
        int gpu = nvml_events_gpu(ctx, data.device);
        if (gpu < 0)
            continue;
        gs_nvml_sched_event(&ctx->devs[gpu], data.eventType);
        if (data.eventType == NVML_EVENT_TYPE_PSTATE)
            continue; /* the schedule's alone */
        if (n == max) {
            (*dropped)++;
            continue;
        }
        out[n++] = (struct gs_event){ gs_clock_wall_ms(), ctx->devs[gpu].base.index,
                                      nvml_events_kind(data.eventType),
                                      data.eventType & NVML_EVENT_TYPE_XID_CRITICAL ? data.eventData : 0 };
    }
    return (int)n;
}
