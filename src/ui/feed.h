/* SPDX-License-Identifier: MIT */
/*
 * feed.h - the sampler thread of `gpuscope top`. It takes snapshots at the
 * chosen interval, publishes each (buffers swapped under a mutex, never
 * copied) and wakes the UI through a self-pipe, so a slow NVML call never
 * blocks key handling. It also runs the health engine on each snapshot (the
 * badges' findings), so the UI thread never does.
 */
#ifndef GS_UI_FEED_H
#define GS_UI_FEED_H

#include <stdbool.h>
#include <stdint.h>

#include "core/err.h"
#include "core/model.h"
#include "core/sampler.h"
#include "health/health.h"

struct gs_feed;

/* Takes ownership of an open sampler; starts the thread. 0 or negative gs_errc. */
int gs_feed_start(struct gs_feed **out, struct gs_sampler *s, uint32_t interval_ms,
                  struct gs_err *err);
/* Readable when a new snapshot is published (poll() it with stdin). */
int gs_feed_fd(const struct gs_feed *f);
/* If a snapshot newer than view is published, move it into view (the old view
 * becomes the thread's next publishing buffer) and return 1; else 0. *rc gets
 * gs_sampler_snapshot's result and err its error for that snapshot; findings
 * gets the health engine's current findings (evaluated on the sampler thread,
 * swapped like the snapshot, never copied on this side). */
int gs_feed_take(struct gs_feed *f, struct gs_snapshot *view, struct gs_findings *findings, int *rc,
                 struct gs_err *err);
/* Empty the wake-up pipe without taking anything (while paused). */
void gs_feed_drain(struct gs_feed *f);
void gs_feed_set_interval(struct gs_feed *f, uint32_t interval_ms);
void gs_feed_set_paused(struct gs_feed *f, bool paused);
/* The PIDs on screen (their CPU/RSS read every tick, the others' every few
 * seconds: gs_sampler_host_focus); all: every PID every tick (a sort or view
 * that needs them all). Copied; applied before the next snapshot. */
void gs_feed_set_focus(struct gs_feed *f, const uint32_t *pids, uint32_t n, bool all);
/* Ask for a snapshot now (e.g. after resuming). */
void gs_feed_kick(struct gs_feed *f);
/* The health engine's configuration in top: its history sized for the
 * checks at one evaluation per GS_FEED_EVAL_MS at the most (exposed for
 * tests/unit/test_ui_feed.c). */
#define GS_FEED_EVAL_MS 900
void gs_feed_health_cfg(struct gs_health_cfg *hc);
/* Stop the thread (waits for an NVML call in flight), close the sampler. */
void gs_feed_stop(struct gs_feed *f);

#endif /* GS_UI_FEED_H */
