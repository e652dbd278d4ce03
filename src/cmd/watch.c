/* SPDX-License-Identifier: MIT */
/*
 * watch.c - `gpuscope watch` (module watch.so, libcurl): sample every interval,
 * read the kernel log's new Xid lines (/dev/kmsg or --kernel-log FILE, followed
 * without blocking), run the health engine, evaluate the rules (src/health/rules.h) and hand
 * notifications to the notifier thread (src/notify/). Stops on SIGINT/SIGTERM
 * or after --count ticks, delivering what is queued first. docs/HEALTH.md.
 */
#include "cmd/cmd.h"
#include "core/sampler.h"
#include "health/health.h"
#include "health/kmsg.h"
#include "health/report.h"
#include "health/rules.h"
#include "notify/notify.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static volatile sig_atomic_t stop_flag;

static void on_signal(int sig)
{
    (void)sig;
    stop_flag = 1;
}

struct wargs {
    const char *rules_path;
    int64_t interval_ms;
    long count;               /* ticks; 0 = until a signal */
    int64_t drain_ms;         /* at exit, keep delivering for at most this long */
    bool check_only;
    const char *only_ids;
    const char *kernel_log;   /* NULL: /dev/kmsg */
    bool no_kernel_log;
    struct gs_health_cfg cfg;
};

static void usage(void)
{
    printf("usage: gpuscope watch [options]\n\n"
           "Evaluate health checks and alert rules continuously; notify on stdout, by running a program,\n"
           "or through a webhook.\n\n"
           "  --rules=FILE          rules file (default: the built-in rules, see --print-rules)\n"
           "  --check-rules         parse the rules file and exit (2 with file:line: reason if bad)\n"
           "  --print-rules         print the built-in default rules\n"
           "  --interval=DUR        between evaluations (default 1s)\n"
           "  --count=N             stop after N evaluations\n"
           "  --drain=DUR           at exit, keep delivering queued notifications this long (10s)\n"
           "  --webhook=URL[,FMT]   also POST to URL (FMT: generic, slack, alertmanager)\n"
           "  --exec=/PATH          also run this program (no shell) with the alert on stdin\n"
           "  --expect-gpus=N       fewer GPUs than N is an alert\n"
           "  --kernel-log=FILE     follow FILE for Xid lines instead of /dev/kmsg (new lines only)\n"
           "  --no-kernel-log       Xids from NVML's events only\n"
           "  -i, --id=IDS          only these GPUs\n"
           "  --threshold=NAME=VAL  override a health threshold (see gpuscope doctor --list-thresholds)\n\n"
           "Exit codes: 0 stopped normally, 2 usage or bad rules, 3 no NVML/driver, 4 no GPU.\n"
           "See docs/HEALTH.md.\n");
}

static const char *val(int argc, char **argv, int *i, const char *name, struct gs_err *err)
{
    size_t n = strlen(name);
    if (!strncmp(argv[*i], name, n) && argv[*i][n] == '=')
        return argv[*i] + n + 1;
    if (*i + 1 >= argc) {
        gs_err_set(err, GS_E_USAGE, "%s needs a value", name);
        return NULL;
    }
    return argv[++*i];
}

static bool opt(const char *a, const char *name)
{
    size_t n = strlen(name);
    return !strncmp(a, name, n) && (a[n] == '\0' || a[n] == '=');
}

static int add_target_line(struct gs_rules *rs, const char *kind, const char *v, struct gs_err *err)
{
    char line[700];
    const char *comma = strcmp(kind, "webhook") ? NULL : strrchr(v, ',');
    if (comma)
        snprintf(line, sizeof(line), "notify webhook %.*s format=%s", (int)(comma - v), v, comma + 1);
    else
        snprintf(line, sizeof(line), "notify %s %s", kind, v);
    return gs_rules_parse(rs, line, strlen(line), kind[0] == 'w' ? "--webhook" : "--exec", err);
}

static int parse_args(int argc, char **argv, struct wargs *w, struct gs_rules *rs, struct gs_err *err)
{
    const char *v;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage();
            return 1;
        } else if (!strcmp(a, "--print-rules")) {
            fputs(gs_rules_default, stdout);
            return 1;
        } else if (!strcmp(a, "--check-rules")) {
            w->check_only = true;
        } else if (opt(a, "--rules")) {
            if (!(w->rules_path = val(argc, argv, &i, "--rules", err)))
                return -GS_E_USAGE;
        } else if (opt(a, "--interval")) {
            if (!(v = val(argc, argv, &i, "--interval", err)))
                return -GS_E_USAGE;
            if ((w->interval_ms = gs_health_duration_ms(v)) < 10)
                return gs_err_set(err, GS_E_USAGE, "--interval: '%s' is not a duration of at least 10ms", v);
        } else if (opt(a, "--count")) {
            if (!(v = val(argc, argv, &i, "--count", err)))
                return -GS_E_USAGE;
            char *end;
            w->count = strtol(v, &end, 10);
            if (end == v || *end || w->count < 1)
                return gs_err_set(err, GS_E_USAGE, "--count: '%s' is not a positive number", v);
        } else if (opt(a, "--drain")) {
            if (!(v = val(argc, argv, &i, "--drain", err)))
                return -GS_E_USAGE;
            if ((w->drain_ms = gs_health_duration_ms(v)) < 0)
                return gs_err_set(err, GS_E_USAGE, "--drain: '%s' is not a duration", v);
        } else if (opt(a, "--webhook") || opt(a, "--exec")) {
            bool wh = a[2] == 'w';
            if (!(v = val(argc, argv, &i, wh ? "--webhook" : "--exec", err)) ||
                add_target_line(rs, wh ? "webhook" : "exec", v, err) < 0)
                return -GS_E_USAGE;
        } else if (opt(a, "--expect-gpus")) {
            if (!(v = val(argc, argv, &i, "--expect-gpus", err)))
                return -GS_E_USAGE;
            w->cfg.expect_gpus = (int32_t)strtol(v, NULL, 10);
        } else if (opt(a, "--kernel-log")) {
            if (!(w->kernel_log = val(argc, argv, &i, "--kernel-log", err)))
                return -GS_E_USAGE;
        } else if (!strcmp(a, "--no-kernel-log")) {
            w->no_kernel_log = true;
        } else if (opt(a, "--id") || !strcmp(a, "-i")) {
            if (!(w->only_ids = val(argc, argv, &i, a[1] == 'i' ? "-i" : "--id", err)))
                return -GS_E_USAGE;
        } else if (opt(a, "--threshold")) {
            if (!(v = val(argc, argv, &i, "--threshold", err)) || gs_health_cfg_set(&w->cfg, v, err) < 0)
                return -GS_E_USAGE;
        } else {
            return gs_err_set(err, GS_E_USAGE, "watch: unknown option '%s' (see gpuscope watch --help)", a);
        }
    }
    return 0;
}

struct loop {
    struct gs_notifier *nt;
    struct gs_kmsg_tail tail;
    bool tailing;
    struct gs_kmsg_log klog;
    char kerr_last[384];      /* the latest read error reported, to report changes only */
};

/* Follow the kernel log from its current end; unreadable (no CAP_SYSLOG) is a
 * warning, not a failure: Xids then come from NVML's events only. */
static void kmsg_open(const struct wargs *w, struct loop *l)
{
    struct gs_err e = { 0 };
    if (w->no_kernel_log)
        return;
    if (gs_kmsg_tail_open(&l->tail, w->kernel_log, &e) < 0) {
        fprintf(stderr, "gpuscope watch: kernel log not followed (%s)%s; Xids from NVML's events only\n", e.msg,
                e.code == GS_E_PERMISSION ? ": needs CAP_SYSLOG or root" : "");
        return;
    }
    l->tailing = true;
}

/* New Xid lines since the last tick into the engine (deduplicated there with NVML's events). */
static void kmsg_tick(struct loop *l, struct gs_health *h)
{
    struct gs_err e = { 0 };
    if (!l->tailing)
        return;
    l->klog.n = 0;
    if (gs_kmsg_tail_read(&l->tail, &l->klog, &e) < 0 && strcmp(e.msg, l->kerr_last)) {
        fprintf(stderr, "gpuscope watch: kernel log: %s\n", e.msg);
        snprintf(l->kerr_last, sizeof(l->kerr_last), "%s", e.msg);
    }
    if (l->klog.n)
        gs_health_add_kmsg_live(h, l->klog.v, l->klog.n);
}

static void on_note(void *arg, const struct gs_alert_note *n)
{
    struct loop *l = arg;
    gs_notifier_send(l->nt, n);
}

static int64_t mono_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void sleep_until(int64_t t)
{
    while (!stop_flag) {
        int64_t d = t - mono_ms();
        if (d <= 0)
            return;
        struct timespec ts = { (time_t)(d / 1000), (long)(d % 1000) * 1000000L };
        if (nanosleep(&ts, NULL) == 0)
            return;
    }
}

static int run(const struct wargs *w, struct gs_rules *rs, struct gs_err *err)
{
    struct gs_sampler_opts o = GS_SAMPLER_OPTS_INIT;
    struct gs_sampler *s;
    struct gs_snapshot snap;
    struct gs_findings f = { 0 };
    struct loop l = { 0 };
    o.slow = GS_SLOW_SKIP;
    o.only_ids = w->only_ids;
    int rc = gs_sampler_open(&s, &o, err);
    if (rc < 0)
        return rc;
    struct gs_health *h = gs_health_new(&w->cfg);
    if (!h || !(l.nt = gs_notifier_start(rs, stdout, err))) {
        gs_health_free(h);
        gs_sampler_close(s);
        return h ? -GS_E_INTERNAL : gs_err_set(err, GS_E_NOMEM, "out of memory");
    }
    gs_snapshot_init(&snap);
    kmsg_open(w, &l);
    gs_sim_step_fn step = NULL;
    int64_t start = mono_ms(), t = 0;
    for (long k = 0; !stop_flag && (!w->count || k < w->count); k++) {
        if (k > 0) {
            if (step) {
                step((double)w->interval_ms / 1000.0);
                t += w->interval_ms;
            } else {
                sleep_until(start + k * w->interval_ms);
                t = mono_ms() - start;
            }
        }
        rc = gs_sampler_snapshot(s, &snap, err);
        if (rc < 0 && rc != -GS_E_GPU_LOST && rc != -GS_E_BACKEND)
            fprintf(stderr, "gpuscope watch: %s\n", err->msg);
        if (k == 0)
            step = gs_sim_clock_stepper(&snap.sys);
        gs_health_add(h, &snap, t);
        kmsg_tick(&l, h);
        gs_health_eval(h, &f);
        gs_rules_eval(rs, &snap, &f, t, on_note, &l);
    }
    if (rs->suppressed)
        fprintf(stderr, "gpuscope watch: rate limit suppressed %u notifications\n", rs->suppressed);
    gs_notifier_stop(l.nt, (int)w->drain_ms);
    gs_findings_free(&f);
    gs_snapshot_release(&snap);
    if (l.tailing)
        gs_kmsg_tail_close(&l.tail);
    gs_kmsg_free(&l.klog);
    gs_health_free(h);
    gs_sampler_close(s);
    return 0;
}

int cmd_watch(int argc, char **argv, const struct gs_cmd_ctx *ctx)
{
    struct wargs w = { .interval_ms = 1000, .drain_ms = 10000 };
    struct gs_err err = { 0 };
    (void)ctx;
    gs_health_cfg_default(&w.cfg);
    w.cfg.recent_s = 60; /* alerts follow the last minute, not the whole ring */
    struct gs_rules *rs = calloc(1, sizeof(*rs));
    if (!rs)
        return GS_EXIT_FAILURE;
    int rc = parse_args(argc, argv, &w, rs, &err);
    if (rc == 0) {
        rc = w.rules_path ? gs_rules_load(rs, w.rules_path, &err)
                          : gs_rules_parse(rs, gs_rules_default, strlen(gs_rules_default), "(built-in rules)", &err);
    }
    if (rc == 0 && w.check_only) {
        printf("%s: %d rules, %d notify targets\n", w.rules_path ? w.rules_path : "(built-in rules)", rs->nrules,
               rs->ntargets);
        rc = 1;
    }
    if (rc == 0) {
        struct sigaction sa = { 0 };
        sa.sa_handler = on_signal;
        sigaction(SIGINT, &sa, NULL);
        sigaction(SIGTERM, &sa, NULL);
        signal(SIGPIPE, SIG_IGN);
        rc = run(&w, rs, &err);
    }
    gs_rules_free(rs);
    free(rs);
    if (rc < 0) {
        gs_err_print(&err);
        return gs_exit_from_errc(rc);
    }
    return GS_EXIT_OK;
}
