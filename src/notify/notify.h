/* SPDX-License-Identifier: MIT */
/*
 * notify.h - delivering watch's alert notifications: a line on stdout (the
 * log) at once, then, on a separate worker thread so the checks never wait,
 * each `notify` target of the rules: a program run directly (posix_spawn, no
 * shell) with the alert as JSON on stdin and in GPUSCOPE_ALERT_* variables,
 * or an HTTP webhook POSTed through libcurl (generic JSON, Slack-compatible
 * {"text"}, Alertmanager v2 [alerts]), retried with exponential backoff.
 */
#ifndef GS_NOTIFY_H
#define GS_NOTIFY_H

#include <stdio.h>

#include "core/err.h"
#include "health/rules.h"

struct gs_notifier;

struct gs_notifier *gs_notifier_start(const struct gs_rules *rs, FILE *log, struct gs_err *err);
/* Log the note and queue it for every target (never blocks on delivery). */
void gs_notifier_send(struct gs_notifier *n, const struct gs_alert_note *note);
/* Deliver what is queued (retries included) for at most deadline_ms, then stop.
 * Returns the notifications that were never delivered (queue full, retries
 * exhausted, or still queued at the deadline). */
unsigned gs_notifier_stop(struct gs_notifier *n, int deadline_ms);

/* The alert as JSON in a target's format (caller frees); exposed for tests. */
char *gs_notify_render(const struct gs_alert_note *note, enum gs_webhook_format fmt, const char *host);

#endif /* GS_NOTIFY_H */
