/* SPDX-License-Identifier: MIT */
/*
 * watch.c - `gpuscope watch` (module watch.so, libcurl): sample every interval,
 * read the kernel log's new Xid lines (/dev/kmsg or --kernel-log FILE, followed
 * without blocking), run the health engine, evaluate the rules (src/health/rules.h) and hand
 * notifications to the notifier thread (src/notify/). Stops on SIGINT/SIGTERM
 * or after --count ticks, delivering what is queued first. docs/HEALTH.md.
 */
#include "cmd/cmd.h"
#include "cmd/opts.h"
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

#include "lib/clock.h"

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
    int64_t am_resend_ms;     /* --alertmanager-resend; 0: the rules' (60 s) */
    struct gs_health_cfg cfg;
    unsigned lost;            /* notifications never delivered */
};

/* ---- options (one table: parsing and --help) ------------------------------------------------ */

struct wctx {
    struct wargs *w;
    struct gs_rules *rs;
};

#define W (((struct wctx *)ctx)->w)
#define RS (((struct wctx *)ctx)->rs)
static int o_print_rules(void *ctx, const char *const *v, struct gs_err *err)
{
    (void)ctx, (void)v, (void)err;
    fputs(gs_rules_default, stdout);
    return GS_OPT_DONE;
}
static int o_check(void *ctx, const char *const *v, struct gs_err *err)
{
    (void)v, (void)err;
    W->check_only = true;
    return 0;
}
static int o_rules(void *ctx, const char *const *v, struct gs_err *err)
{
    (void)err;
    W->rules_path = v[0];
    return 0;
}
static int o_interval(void *ctx, const char *const *v, struct gs_err *err)
{
    if ((W->interval_ms = gs_health_duration_ms(v[0])) < 10)
        return gs_err_set(err, GS_E_USAGE, "--interval: '%s' is not a duration of at least 10ms", v[0]);
    return 0;
}
static int o_count(void *ctx, const char *const *v, struct gs_err *err)
{
    char *end;
    W->count = strtol(v[0], &end, 10);
    if (end == v[0] || *end || W->count < 1)
        return gs_err_set(err, GS_E_USAGE, "--count: '%s' is not a positive number", v[0]);
    return 0;
}
static int o_drain(void *ctx, const char *const *v, struct gs_err *err)
{
    if ((W->drain_ms = gs_health_duration_ms(v[0])) < 0)
        return gs_err_set(err, GS_E_USAGE, "--drain: '%s' is not a duration", v[0]);
    return 0;
}
static int o_resend(void *ctx, const char *const *v, struct gs_err *err)
{
    if ((W->am_resend_ms = gs_health_duration_ms(v[0])) < 1000)
        return gs_err_set(err, GS_E_USAGE, "--alertmanager-resend: '%s' is not a duration of at least 1s", v[0]);
    return 0;
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
static int o_webhook(void *ctx, const char *const *v, struct gs_err *err)
{
    return add_target_line(RS, "webhook", v[0], err) < 0 ? -GS_E_USAGE : 0;
}
static int o_exec(void *ctx, const char *const *v, struct gs_err *err)
{
    return add_target_line(RS, "exec", v[0], err) < 0 ? -GS_E_USAGE : 0;
}
static int o_expect(void *ctx, const char *const *v, struct gs_err *err)
{
    char *end;
    long n = strtol(v[0], &end, 10);
    if (end == v[0] || *end || n < 1 || n > 1024)
        return gs_err_set(err, GS_E_USAGE, "--expect-gpus: '%s' is not a count", v[0]);
    W->cfg.expect_gpus = (int32_t)n;
    return 0;
}
static int o_klog(void *ctx, const char *const *v, struct gs_err *err)
{
    (void)err;
    W->kernel_log = v[0];
    return 0;
}
static int o_no_klog(void *ctx, const char *const *v, struct gs_err *err)
{
    (void)v, (void)err;
    W->no_kernel_log = true;
    return 0;
}
static int o_id(void *ctx, const char *const *v, struct gs_err *err)
{
    (void)err;
    W->only_ids = v[0];
    return 0;
}
static int o_threshold(void *ctx, const char *const *v, struct gs_err *err)
{
    return gs_health_cfg_set(&W->cfg, v[0], err) < 0 ? -GS_E_USAGE : 0;
}
#undef W
#undef RS

static const struct gs_opt watch_opts[] = {
    { "--rules", 0, "FILE", o_rules, "rules file (default: the built-in rules, see --print-rules)",
      .comp = GS_COMP_FILE,
      .man = "The rules file (default: the built-in rules)." },
    { "--check-rules", 0, NULL, o_check, "parse the rules file and exit (2 with file:line: reason if bad)",
      .man = "Parse the rules file and exit: 2 with\n"
        ".Ar file : Ns Ar line : reason\n"
        "when it is bad." },
    { "--print-rules", 0, NULL, o_print_rules, "print the built-in default rules",
      .man = "Print the built-in rules." },
    { "--interval", 0, "DUR", o_interval, "between evaluations (default 1s)",
      .man = "Between evaluations (default 1s)." },
    { "--count", 0, "N", o_count, "stop after N evaluations",
      .man = "Stop after\n"
        ".Ar N\n"
        "evaluations." },
    { "--drain", 0, "DUR", o_drain, "at exit, keep delivering queued notifications this long (10s)",
      .man = "At exit, keep delivering queued notifications this long (10s)." },
    { "--webhook", 0, "URL[,FMT]", o_webhook, "also POST to URL (FMT: generic, slack, alertmanager)",
      .flags = GS_OPT_REPEAT,
      .man = "Also POST to\n"
        ".Ar URL ;\n"
        ".Ar FMT\n"
        "is\n"
        ".Cm generic , slack\n"
        "or\n"
        ".Cm alertmanager ." },
    { "--alertmanager-resend", 0, "DUR", o_resend,
      "re-send active alerts to Alertmanager this often (60s; below its resolve_timeout)",
      .man = "Re-send active alerts to Alertmanager this often (60s; below its\n"
        "resolve_timeout)." },
    { "--exec", 0, "/PATH", o_exec, "also run this program (no shell) with the alert on stdin",
      .comp = GS_COMP_FILE, .flags = GS_OPT_REPEAT,
      .man = "Also run this program, without a shell, with the alert on its standard input." },
    { "--expect-gpus", 0, "N", o_expect, "fewer GPUs than N is an alert",
      .man = "Fewer GPUs than\n"
        ".Ar N\n"
        "is an alert." },
    { "--kernel-log", 0, "FILE", o_klog, "follow FILE for Xid lines instead of /dev/kmsg (new lines only)",
      .comp = GS_COMP_FILE,
      .man = "Follow\n"
        ".Ar FILE\n"
        "for Xid lines instead of\n"
        ".Pa /dev/kmsg\n"
        "(new lines only)." },
    { "--no-kernel-log", 0, NULL, o_no_klog, "Xids from NVML's events only",
      .man = "Xids from NVML's events only." },
    { "--id", 'i', "IDS", o_id, "only these GPUs", .comp = GS_COMP_GPU, .flags = GS_OPT_LIST,
      .man = "Only these GPUs." },
    { "--threshold", 0, "NAME=VAL", o_threshold, "override a health threshold (see gpuscope doctor --list-thresholds)",
      .flags = GS_OPT_REPEAT,
      .man = "Override a health threshold\n"
        ".Po see\n"
        ".Ql gpuscope doctor --list-thresholds\n"
        ".Pc ." },
};
const struct gs_cli watch_cli = {
    .name = "watch",
    .usage = "gpuscope watch [options]",
    .about = "Evaluate health checks and alert rules continuously; notify on stdout, by running a program,\n"
             "or through a webhook.",
    .opts = watch_opts,
    .nopts = GS_NOPTS(watch_opts),
    .footer = "Exit codes: 0 stopped normally, 1 notifications could not be delivered, 2 usage or bad rules,\n"
              "3 no NVML/driver, 4 no GPU. See docs/HEALTH.md.",
};

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

static void sleep_until(int64_t t)
{
    while (!stop_flag) {
        int64_t d = t - gs_clock_mono_ms();
        if (d <= 0)
            return;
        struct timespec ts = { (time_t)(d / 1000), (long)(d % 1000) * 1000000L };
        if (nanosleep(&ts, NULL) == 0)
            return;
    }
}

static int run(struct wargs *w, struct gs_rules *rs, struct gs_err *err)
{
    struct gs_sampler_opts o = GS_SAMPLER_OPTS_INIT;
    struct gs_sampler *s;
    struct gs_snapshot snap;
    struct gs_findings f = { 0 };
    struct loop l = { 0 };
    o.slow = GS_SLOW_SKIP;
    o.only_ids = w->only_ids;
    gs_sim_stepping_prepare();
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
    int64_t start = gs_clock_mono_ms(), t = 0;
    for (long k = 0; !stop_flag && (!w->count || k < w->count); k++) {
        if (k > 0) {
            if (step) {
                step((double)w->interval_ms / 1000.0);
                t += w->interval_ms;
            } else {
                sleep_until(start + k * w->interval_ms);
                t = gs_clock_mono_ms() - start;
            }
        }
        rc = gs_sampler_snapshot(s, &snap, err);
        if (rc < 0 && rc != -GS_E_GPU_LOST && rc != -GS_E_BACKEND)
            fprintf(stderr, "gpuscope watch: %s\n", err->msg);
        if (k == 0)
            step = gs_sim_clock_stepper(&snap.sys);
        gs_health_add(h, &snap, t);
        kmsg_tick(&l, h);
        if (gs_health_eval(h, &f) < 0)
            fprintf(stderr, "gpuscope watch: out of memory: %zu finding%s of this evaluation could not be kept "
                            "(the rules saw the others)\n", f.lost, f.lost == 1 ? "" : "s");
        gs_rules_eval(rs, &snap, &f, t, on_note, &l);
    }
    if (rs->suppressed)
        fprintf(stderr, "gpuscope watch: rate limit suppressed %u notifications\n", rs->suppressed);
    w->lost = gs_notifier_stop(l.nt, (int)w->drain_ms);
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
    struct wctx wc = { &w, rs };
    int rc = gs_cli_parse(&watch_cli, argc, argv, &wc, &err);
    if (rc == 0) {
        rc = w.rules_path ? gs_rules_load(rs, w.rules_path, &err)
                          : gs_rules_parse(rs, gs_rules_default, strlen(gs_rules_default), "(built-in rules)", &err);
    }
    if (rc == 0 && w.am_resend_ms)
        rs->am_resend_ms = w.am_resend_ms;
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
    if (w.lost) {
        fprintf(stderr, "gpuscope watch: %u notification%s never delivered\n", w.lost, w.lost == 1 ? "" : "s");
        return GS_EXIT_FAILURE;
    }
    return GS_EXIT_OK;
}
