/* SPDX-License-Identifier: MIT */
/*
 * rules.h - `gpuscope watch`'s rules: the file format (docs/HEALTH.md), its
 * parser (errors name file:line and the reason), and the alert state machine
 * (for-durations, hysteresis, de-duplication, repeat interval, a global rate
 * limit, resolved notices). Pure logic: the notifiers live in src/notify/.
 *
 *   # one rule per line: a metric threshold or an engine finding
 *   temperature >= 85 for 1m clear 80 severity=warning
 *   finding xid.* severity=critical
 *   repeat 1h                       # re-notify a still-firing alert (0: never)
 *   rate-limit 20 per 1m            # at most 20 notifications a minute
 *   notify webhook https://hooks.example/x format=slack
 *   notify exec /usr/local/bin/page-oncall --team gpu
 */
#ifndef GS_RULES_H
#define GS_RULES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/err.h"
#include "core/model.h"
#include "health/health.h"

enum gs_metric {
    GS_M_TEMPERATURE = 1, /* C */
    GS_M_MEM_TEMP,        /* C */
    GS_M_MEMORY_USED_PCT, /* used / total, % */
    GS_M_GPU_UTIL,        /* % */
    GS_M_POWER_W,         /* W */
    GS_M_POWER_PCT,       /* of the enforced limit, % */
    GS_M_ECC_UNCORRECTED, /* volatile uncorrectable count */
    GS_M_XID_COUNT,       /* Xids since watch started */
};

enum gs_op { GS_OP_GE = 1, GS_OP_GT, GS_OP_LE, GS_OP_LT, GS_OP_EQ };

struct gs_rule {
    char name[96];          /* "temperature >= 85" or name=... */
    enum gs_metric metric;  /* 0 for a finding rule */
    enum gs_op op;
    double threshold, clear;
    char pattern[32];       /* finding code glob ("xid.*") */
    int64_t for_ms;
    uint8_t severity;       /* 0: the finding's own */
    int line;
};

enum gs_notify_kind { GS_NOTIFY_EXEC = 1, GS_NOTIFY_WEBHOOK };
enum gs_webhook_format { GS_WH_GENERIC = 0, GS_WH_SLACK, GS_WH_ALERTMANAGER };

#define GS_NOTIFY_ARGS 16
struct gs_notify_target {
    enum gs_notify_kind kind;
    char *argv[GS_NOTIFY_ARGS + 1]; /* exec: program and arguments (owned) */
    char url[512];                  /* webhook */
    enum gs_webhook_format format;
};

#define GS_RULES_MAX 64
#define GS_TARGETS_MAX 8
#define GS_ALERTS_MAX 1024

enum gs_alert_state { GS_AL_PENDING = 1, GS_AL_FIRING, GS_AL_RESOLVED };

struct gs_alert {
    bool used;
    uint8_t state;          /* enum gs_alert_state */
    int rule;
    int32_t gpu;
    uint32_t pid;
    char code[32];
    int64_t since_ms, fired_ms, notified_ms, seen_ms;
    struct gs_finding last; /* what the latest evaluation said */
};

struct gs_rules {
    struct gs_rule rules[GS_RULES_MAX];
    int nrules;
    struct gs_notify_target targets[GS_TARGETS_MAX];
    int ntargets;
    int64_t repeat_ms;              /* 0: never re-notify */
    int64_t am_resend_ms;           /* re-send active alerts to Alertmanager this often (60 s) */
    uint32_t rate_n;                /* 0: no rate limit */
    int64_t rate_window_ms;
    /* state */
    struct gs_alert alerts[GS_ALERTS_MAX];
    int64_t rate_start_ms;
    uint32_t rate_used, suppressed;
};

/* A notification: an alert turning FIRING (or repeating) or RESOLVED. */
struct gs_alert_note {
    bool resolved;
    bool limited;                   /* over the rate limit: log and people's targets skip it, Alertmanager
                                     * state still follows (it must learn that an alert resolved) */
    const struct gs_rule *rule;
    const struct gs_alert *alert;   /* alert->last is the finding (code, title, evidence ...) */
    int64_t t_ms;
};
typedef void (*gs_note_fn)(void *arg, const struct gs_alert_note *n);

extern const char gs_rules_default[];

/* Parse rules text; errors say "<fname>:<line>: <reason>" (GS_E_PARSE). */
int gs_rules_parse(struct gs_rules *r, const char *text, size_t len, const char *fname, struct gs_err *err);
int gs_rules_load(struct gs_rules *r, const char *path, struct gs_err *err);
void gs_rules_free(struct gs_rules *r);
/* Evaluate at t_ms against the latest snapshot and engine findings; calls fn per notification. */
void gs_rules_eval(struct gs_rules *r, const struct gs_snapshot *snap, const struct gs_findings *f, int64_t t_ms,
                   gs_note_fn fn, void *arg);

#endif /* GS_RULES_H */
