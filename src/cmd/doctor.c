/* SPDX-License-Identifier: MIT */
/*
 * doctor.c - `gpuscope doctor`: sample a short window (default 10 s at 1 s;
 * --quick: one snapshot), read the kernel log's Xids, run the health engine
 * (src/health/) and print its findings grouped by severity, or as JSON.
 * Exit status by worst severity: 0 none or info, 6 warning, 7 critical
 * (2 usage, 3 no NVML/driver, 4 no GPU). When the recorder's database exists
 * (gpuscope record; --db), it is read read-only through the record module
 * (the core has no SQLite) for the GPUs seen before. docs/HEALTH.md.
 */
#include "cmd/cmd.h"
#include "core/module.h"
#include "core/sampler.h"
#include "health/health.h"
#include "health/kmsg.h"
#include "health/report.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define EXIT_WARNING 6
#define EXIT_CRITICAL 7

struct dargs {
    int64_t window_ms, interval_ms;
    bool json;
    const char *kernel_log; /* NULL: /dev/kmsg then dmesg */
    bool no_kernel_log;
    const char *only_ids;
    const char *db;         /* --db; NULL: the recorder's default path */
    bool no_history;
    struct gs_health_cfg cfg;
};

/* What doctor learnt from the recorder's database. */
struct dhist {
    bool read;
    char path[256];
    struct gs_history h;
    struct gs_err err;
};

static void usage(FILE *out)
{
    fprintf(out,
            "usage: gpuscope doctor [options]\n\n"
            "Sample the GPUs for a short window, read the kernel log's Xids, and report problems\n"
            "with their evidence, likely cause and what to do.\n\n"
            "  --window=DUR          how long to sample (default 10s; 500ms, 2m ...)\n"
            "  --interval=DUR        between snapshots (default 1s)\n"
            "  --quick               one snapshot (window checks need history and are skipped)\n"
            "  --format=text|json    output (default text)\n"
            "  --kernel-log=FILE     read Xids from FILE (saved dmesg, journal, /dev/kmsg dump)\n"
            "  --no-kernel-log       do not read the kernel log\n"
            "  --expect-gpus=N       report fewer GPUs than N as critical\n"
            "  --db=FILE             the recorder's database (default: gpuscope record's), read\n"
            "                        read-only when it exists: fewer GPUs than it has seen is critical\n"
            "  --no-history          do not read the recorder's database\n"
            "  -i, --id=IDS          only these GPUs (index, UUID or PCI bus id)\n"
            "  --threshold=NAME=VAL  override a threshold (repeatable); --list-thresholds shows them\n"
            "  --explain xid N       what the Xid catalog says about Xid N\n\n"
            "Exit codes: 0 no problem (or info only), 6 warning, 7 critical, 2 usage, 3 no NVML/driver,\n"
            "4 no GPU. See docs/HEALTH.md.\n");
}

static const char *opt_value(int argc, char **argv, int *i, const char *name, struct gs_err *err)
{
    size_t n = strlen(name);
    const char *a = argv[*i];
    if (!strncmp(a, name, n) && a[n] == '=')
        return a + n + 1;
    if (*i + 1 >= argc) {
        gs_err_set(err, GS_E_USAGE, "%s needs a value", name);
        return NULL;
    }
    return argv[++*i];
}

static bool is_opt(const char *a, const char *name)
{
    size_t n = strlen(name);
    return !strncmp(a, name, n) && (a[n] == '\0' || a[n] == '=');
}

static int parse_duration(const char *v, const char *name, int64_t *ms, struct gs_err *err)
{
    *ms = v ? gs_health_duration_ms(v) : -1;
    if (*ms < 0)
        return gs_err_set(err, GS_E_USAGE, "%s: '%s' is not a duration (10s, 500ms, 2m)", name, v ? v : "");
    return 0;
}

/* Returns 0 to run, 1 when done (help, explain), or a negative errc. */
static int parse_args(int argc, char **argv, struct dargs *d, struct gs_err *err)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 1;
        } else if (!strcmp(a, "--quick")) {
            d->window_ms = 0;
        } else if (is_opt(a, "--window")) {
            if (parse_duration(opt_value(argc, argv, &i, "--window", err), "--window", &d->window_ms, err) < 0)
                return -GS_E_USAGE;
        } else if (is_opt(a, "--interval")) {
            if (parse_duration(opt_value(argc, argv, &i, "--interval", err), "--interval", &d->interval_ms, err) < 0)
                return -GS_E_USAGE;
            if (d->interval_ms < 10)
                return gs_err_set(err, GS_E_USAGE, "--interval: at least 10ms");
        } else if (is_opt(a, "--format")) {
            if (!(v = opt_value(argc, argv, &i, "--format", err)))
                return -GS_E_USAGE;
            if (strcmp(v, "json") && strcmp(v, "text"))
                return gs_err_set(err, GS_E_USAGE, "--format: text or json");
            d->json = !strcmp(v, "json");
        } else if (is_opt(a, "--kernel-log")) {
            if (!(d->kernel_log = opt_value(argc, argv, &i, "--kernel-log", err)))
                return -GS_E_USAGE;
        } else if (!strcmp(a, "--no-kernel-log")) {
            d->no_kernel_log = true;
        } else if (is_opt(a, "--db")) {
            if (!(d->db = opt_value(argc, argv, &i, "--db", err)))
                return -GS_E_USAGE;
        } else if (!strcmp(a, "--no-history")) {
            d->no_history = true;
        } else if (is_opt(a, "--expect-gpus")) {
            if (!(v = opt_value(argc, argv, &i, "--expect-gpus", err)))
                return -GS_E_USAGE;
            char *end;
            long n = strtol(v, &end, 10);
            if (end == v || *end || n < 1 || n > 1024)
                return gs_err_set(err, GS_E_USAGE, "--expect-gpus: '%s' is not a count", v);
            d->cfg.expect_gpus = (int32_t)n;
        } else if (is_opt(a, "--id") || !strcmp(a, "-i")) {
            if (!(d->only_ids = opt_value(argc, argv, &i, a[1] == 'i' ? "-i" : "--id", err)))
                return -GS_E_USAGE;
        } else if (is_opt(a, "--threshold")) {
            if (!(v = opt_value(argc, argv, &i, "--threshold", err)) || gs_health_cfg_set(&d->cfg, v, err) < 0)
                return -GS_E_USAGE;
        } else if (!strcmp(a, "--list-thresholds")) {
            gs_health_cfg_list(stdout, &d->cfg);
            return 1;
        } else if (!strcmp(a, "--explain")) {
            char *end = NULL;
            long n = i + 2 < argc ? strtol(argv[i + 2], &end, 10) : -1;
            if (i + 2 >= argc || strcmp(argv[i + 1], "xid") || !end || *end || n < 0 || n > 100000)
                return gs_err_set(err, GS_E_USAGE, "--explain: use --explain xid N");
            gs_xid_explain((uint32_t)n, stdout);
            return 1;
        } else {
            return gs_err_set(err, GS_E_USAGE, "doctor: unknown option '%s' (see gpuscope doctor --help)", a);
        }
    }
    return 0;
}

static int64_t mono_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void sleep_ms(int64_t ms)
{
    struct timespec ts = { (time_t)(ms / 1000), (long)(ms % 1000) * 1000000L };
    while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
        ;
}

/* Sample the window into the engine; returns snapshots taken, or a negative errc. */
static int sample_window(const struct dargs *d, struct gs_health *h, struct gs_snapshot *snap, struct gs_err *err)
{
    struct gs_sampler_opts o = GS_SAMPLER_OPTS_INIT;
    struct gs_sampler *s;
    o.slow = GS_SLOW_SKIP;
    o.only_ids = d->only_ids;
    int rc = gs_sampler_open(&s, &o, err);
    if (rc < 0)
        return rc;
    int64_t n = d->window_ms / d->interval_ms + 1, t = 0, start = mono_ms();
    gs_sim_step_fn step = NULL;
    int taken = 0;
    for (int64_t k = 0; k < n; k++) {
        if (k > 0) {
            if (step) {
                step((double)d->interval_ms / 1000.0);
                t += d->interval_ms;
            } else {
                sleep_ms(start + k * d->interval_ms - mono_ms());
                t = mono_ms() - start;
            }
        }
        rc = gs_sampler_snapshot(s, snap, err);
        if (rc < 0 && rc != -GS_E_GPU_LOST && rc != -GS_E_BACKEND)
            break;
        if (k == 0)
            step = gs_sim_clock_stepper(&snap->sys);
        gs_health_add(h, snap, t);
        taken++;
    }
    gs_sampler_close(s);
    return taken;
}

/* The recorder's default database (docs/RECORD.md; the record module's
 * gs_store_default_path, which the core cannot call without loading SQLite). */
static int default_db(char *buf, size_t len)
{
    const char *state = getenv("XDG_STATE_HOME"), *home = getenv("HOME");
    int n;
    if (geteuid() == 0)
        n = snprintf(buf, len, "/var/lib/gpuscope/history.db");
    else if (state && *state)
        n = snprintf(buf, len, "%s/gpuscope/history.db", state);
    else if (home && *home)
        n = snprintf(buf, len, "%s/.local/state/gpuscope/history.db", home);
    else
        return -1;
    return n > 0 && (size_t)n < len ? 0 : -1;
}

/* Read the history when a database exists; the record module is loaded only then. */
static void read_history(const struct dargs *d, struct gs_health *h, struct dhist *dh)
{
    struct stat sb;
    if (d->no_history || d->only_ids) /* a selection is not the whole machine */
        return;
    if (d->db)
        snprintf(dh->path, sizeof(dh->path), "%s", d->db);
    else if (default_db(dh->path, sizeof(dh->path)) < 0)
        return;
    if (stat(dh->path, &sb) < 0) {
        if (d->db) /* asked for by name: say so */
            gs_err_set(&dh->err, GS_E_IO, "%s: %s", dh->path, strerror(errno));
        return;
    }
    void *sym = gs_module_symbol("record", GS_RECORD_HISTORY_SYMBOL, &dh->err);
    gs_record_history_fn fn;
    memcpy(&fn, &sym, sizeof(fn));
    if (!sym || fn(dh->path, &dh->h, &dh->err) < 0)
        return;
    dh->read = true;
    gs_health_set_history(h, &dh->h);
}

static json_t *history_json(const struct dhist *dh)
{
    json_t *o = json_object();
    json_object_set_new(o, "read", json_boolean(dh->read));
    json_object_set_new(o, "path", dh->path[0] ? json_string(dh->path) : json_null());
    json_object_set_new(o, "gpus_seen", dh->read ? json_integer(dh->h.ngpus) : json_null());
    json_object_set_new(o, "error", dh->err.code ? json_string(dh->err.msg) : json_null());
    return o;
}

static void print_json(const struct dargs *d, const struct gs_findings *f, const struct gs_snapshot *snap,
                       int taken, const struct gs_kmsg_log *klog, const struct gs_err *kerr, const struct dhist *dh)
{
    json_t *root = json_object(), *arr = json_array(), *k = json_object();
    json_object_set_new(root, "window_s", json_real((double)d->window_ms / 1000.0));
    json_object_set_new(root, "snapshots", json_integer(taken));
    json_object_set_new(root, "gpus", json_integer(snap->ngpus));
    json_object_set_new(k, "read", json_boolean(!d->no_kernel_log));
    json_object_set_new(k, "source", json_string(klog->source));
    json_object_set_new(k, "lines", json_integer((json_int_t)klog->lines));
    json_object_set_new(k, "xids", json_integer((json_int_t)klog->n));
    json_object_set_new(k, "error", kerr->code ? json_string(kerr->msg) : json_null());
    json_object_set_new(root, "kernel_log", k);
    json_object_set_new(root, "history", history_json(dh));
    for (size_t i = 0; i < f->n; i++)
        json_array_append_new(arr, gs_finding_json(&f->v[i]));
    json_object_set_new(root, "findings", arr);
    enum gs_sev w = gs_findings_worst(f);
    json_object_set_new(root, "worst", w ? json_string(gs_sev_name(w)) : json_null());
    json_dumpf(root, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    fputc('\n', stdout);
    json_decref(root);
}

static void print_text(const struct dargs *d, const struct gs_findings *f, const struct gs_snapshot *snap, int taken,
                       const struct gs_kmsg_log *klog, const struct gs_err *kerr, const struct dhist *dh)
{
    printf("gpuscope doctor: %u GPU%s, %d snapshot%s over %.0f s", snap->ngpus, snap->ngpus == 1 ? "" : "s", taken,
           taken == 1 ? "" : "s", (double)d->window_ms / 1000.0);
    if (d->no_kernel_log)
        printf(", kernel log not read\n\n");
    else if (kerr->code)
        printf(", kernel log unreadable: %s\n\n", kerr->msg);
    else
        printf(", kernel log %s: %zu lines, %zu Xid lines\n\n", klog->source, klog->lines, klog->n);
    if (dh->read)
        printf("recorder history %s: %u GPU%s seen\n\n", dh->path, dh->h.ngpus, dh->h.ngpus == 1 ? "" : "s");
    else if (dh->err.code)
        printf("recorder history unreadable: %s\n\n", dh->err.msg);
    gs_findings_print(stdout, f, isatty(1) && !getenv("NO_COLOR"));
}

int cmd_doctor(int argc, char **argv, const struct gs_cmd_ctx *ctx)
{
    struct dargs d = { .window_ms = 10000, .interval_ms = 1000 };
    struct gs_err err = { 0 }, kerr = { 0 };
    struct gs_kmsg_log klog = { 0 };
    struct gs_findings f = { 0 };
    struct gs_snapshot snap;
    static struct dhist dh; /* ~17 KB: not on the stack */
    (void)ctx;

    gs_health_cfg_default(&d.cfg);
    int rc = parse_args(argc, argv, &d, &err);
    if (rc)
        return rc > 0 ? GS_EXIT_OK : (gs_err_print(&err), GS_EXIT_USAGE);
    struct gs_health *h = gs_health_new(&d.cfg);
    if (!h)
        return GS_EXIT_FAILURE;
    gs_snapshot_init(&snap);
    int taken = sample_window(&d, h, &snap, &err);
    int open_rc = taken < 0 ? taken : 0;
    if (taken < 0) {
        gs_health_set_open_error(h, &err);
        taken = 0;
    }
    if (!d.no_kernel_log) {
        gs_kmsg_read(d.kernel_log, &klog, &kerr);
        gs_health_add_kmsg(h, klog.v, klog.n);
    }
    if (open_rc == 0)
        read_history(&d, h, &dh);
    gs_health_eval(h, &f);
    if (d.json)
        print_json(&d, &f, &snap, taken, &klog, &kerr, &dh);
    else
        print_text(&d, &f, &snap, taken, &klog, &kerr, &dh);
    enum gs_sev worst = gs_findings_worst(&f);
    int code = open_rc < 0 ? gs_exit_from_errc(open_rc)
               : worst == GS_SEV_CRITICAL ? EXIT_CRITICAL
               : worst == GS_SEV_WARNING  ? EXIT_WARNING
                                          : GS_EXIT_OK;
    gs_findings_free(&f);
    gs_kmsg_free(&klog);
    gs_health_free(h);
    gs_snapshot_release(&snap);
    return code;
}
