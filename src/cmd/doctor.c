/* SPDX-License-Identifier: MIT */
/*
 * doctor.c - `gpuscope doctor`: sample a short window (default 10 s at
 * 500 ms; --quick: one snapshot), read the kernel log, the PCI bus (sysfs:
 * GPUs NVML lacks, AER counters) and the recorder's history, run the health
 * engine (src/health/) and print its findings grouped by severity, then the
 * checks the window was too short for; or all of it as JSON. --daily,
 * --weekly, --monthly add the operators' routines. Exit status by worst
 * severity: 0 none or info, 6 warning, 7 critical (2 usage, 3 no NVML/driver,
 * 4 no GPU). Options come from one table (doctor_opts[]). docs/HEALTH.md.
 */
#include "core/prom_api.h"
#include "cmd/cmd.h"
#include "cmd/opts.h"
#include "core/devholders.h"
#include "core/frameworks.h"
#include "core/module.h"
#include "core/paths.h"
#include "core/pyhook.h"
#include "core/sampler.h"
#include "core/sysfs.h"
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

#include "lib/clock.h"
#include "lib/roots.h"

#define EXIT_WARNING 6
#define EXIT_CRITICAL 7

struct dargs {
    int64_t window_ms, interval_ms;
    bool window_set;
    bool json;
    const char *kernel_log; /* NULL: /dev/kmsg then dmesg */
    bool no_kernel_log;
    const char *only_ids;
    const char *db;         /* --db; NULL: the recorder's default path */
    bool no_history;
    bool no_sysfs;          /* no PCI scan, no /dev holder scan */
    unsigned routines;      /* enum gs_routine bits */
    const char *framework_path;
    const char *baseline;   /* --monthly against a saved baseline instead of a month of history */
    struct gs_health_cfg cfg;
    struct gs_prom_opts prom; /* --prometheus URL: the fleet's health instead (fleet.so) */
};

/* What doctor learnt from the recorder's database. */
struct dhist {
    bool read;
    char path[256];
    struct gs_history h;
    struct gs_err err;
    bool trend_read;        /* --monthly */
    struct gs_trend trend;
    struct gs_err trend_err;
    int replayed;           /* recorded ticks fed to the engine before the window */
    double replayed_s;
    struct gs_err replay_err;
};

/* Feeding the recorder's recent ticks to the engine (doctor's replay callback). */
struct dreplay {
    struct gs_health *h;
    const struct gs_snapshot *live; /* the first snapshot of the window */
    int64_t ref_wall_ms;            /* engine time 0 = the first snapshot */
    int fed, mismatched;
    int64_t first_ms, last_ms;
};

/* ---- options (one table: parsing and --help) ------------------------------------------------ */

static int parse_duration(const char *v, const char *name, int64_t *ms, struct gs_err *err)
{
    *ms = v ? gs_health_duration_ms(v) : -1;
    if (*ms < 0)
        return gs_err_set(err, GS_E_USAGE, "%s: '%s' is not a duration (10s, 500ms, 2m)", name, v ? v : "");
    return 0;
}

#define D ((struct dargs *)ctx)
static int o_window(void *ctx, const char *const *v, struct gs_err *err)
{
    D->window_set = true;
    return parse_duration(v[0], "--window", &D->window_ms, err);
}
static int o_interval(void *ctx, const char *const *v, struct gs_err *err)
{
    if (parse_duration(v[0], "--interval", &D->interval_ms, err) < 0)
        return -GS_E_USAGE;
    return D->interval_ms < 10 ? gs_err_set(err, GS_E_USAGE, "--interval: at least 10ms") : 0;
}
static int o_quick(void *ctx, const char *const *v, struct gs_err *err)
{
    (void)v, (void)err;
    D->window_ms = 0;
    D->window_set = true;
    return 0;
}
static int o_format(void *ctx, const char *const *v, struct gs_err *err)
{
    if (strcmp(v[0], "json") && strcmp(v[0], "text"))
        return gs_err_set(err, GS_E_USAGE, "--format: text or json");
    D->json = !strcmp(v[0], "json");
    return 0;
}
static int o_klog(void *ctx, const char *const *v, struct gs_err *err)
{
    (void)err;
    D->kernel_log = v[0];
    return 0;
}
static int o_no_klog(void *ctx, const char *const *v, struct gs_err *err)
{
    (void)v, (void)err;
    D->no_kernel_log = true;
    return 0;
}
static int o_expect(void *ctx, const char *const *v, struct gs_err *err)
{
    char *end;
    long n = strtol(v[0], &end, 10);
    if (end == v[0] || *end || n < 1 || n > 1024)
        return gs_err_set(err, GS_E_USAGE, "--expect-gpus: '%s' is not a count", v[0]);
    D->cfg.expect_gpus = (int32_t)n;
    return 0;
}
static int o_db(void *ctx, const char *const *v, struct gs_err *err)
{
    (void)err;
    D->db = v[0];
    return 0;
}
static int o_no_history(void *ctx, const char *const *v, struct gs_err *err)
{
    (void)v, (void)err;
    D->no_history = true;
    return 0;
}
static int o_no_sysfs(void *ctx, const char *const *v, struct gs_err *err)
{
    (void)v, (void)err;
    D->no_sysfs = true;
    return 0;
}
static int o_id(void *ctx, const char *const *v, struct gs_err *err)
{
    (void)err;
    D->only_ids = v[0];
    return 0;
}
static int o_threshold(void *ctx, const char *const *v, struct gs_err *err)
{
    return gs_health_cfg_set(&D->cfg, v[0], err) < 0 ? -GS_E_USAGE : 0;
}
static int o_list(void *ctx, const char *const *v, struct gs_err *err)
{
    (void)v, (void)err;
    gs_health_cfg_list(stdout, &D->cfg);
    return GS_OPT_DONE;
}
static int o_explain(void *ctx, const char *const *v, struct gs_err *err)
{
    char *end = NULL;
    long n = strtol(v[1], &end, 10);
    (void)ctx;
    if (strcmp(v[0], "xid") || end == v[1] || *end || n < 0 || n > 100000)
        return gs_err_set(err, GS_E_USAGE, "--explain: use --explain xid N");
    gs_xid_explain((uint32_t)n, stdout);
    return GS_OPT_DONE;
}
static int routine_bits(const char *v, unsigned *out, struct gs_err *err)
{
    char buf[64], *save = NULL;
    snprintf(buf, sizeof(buf), "%s", v);
    for (char *w = strtok_r(buf, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
        if (!strcmp(w, "daily"))
            *out |= GS_ROUTINE_DAILY;
        else if (!strcmp(w, "weekly"))
            *out |= GS_ROUTINE_WEEKLY;
        else if (!strcmp(w, "monthly"))
            *out |= GS_ROUTINE_MONTHLY;
        else if (!strcmp(w, "all"))
            *out |= GS_ROUTINE_DAILY | GS_ROUTINE_WEEKLY | GS_ROUTINE_MONTHLY;
        else
            return gs_err_set(err, GS_E_USAGE, "--routine: '%s' is not daily, weekly, monthly or all", w);
    }
    return 0;
}
static int o_routine(void *ctx, const char *const *v, struct gs_err *err)
{
    return routine_bits(v[0], &D->routines, err);
}
static int o_daily(void *ctx, const char *const *v, struct gs_err *err)
{
    (void)v, (void)err;
    D->routines |= GS_ROUTINE_DAILY;
    return 0;
}
static int o_weekly(void *ctx, const char *const *v, struct gs_err *err)
{
    (void)v, (void)err;
    D->routines |= GS_ROUTINE_WEEKLY;
    return 0;
}
static int o_monthly(void *ctx, const char *const *v, struct gs_err *err)
{
    (void)v, (void)err;
    D->routines |= GS_ROUTINE_MONTHLY;
    return 0;
}
static int o_baseline(void *ctx, const char *const *v, struct gs_err *err)
{
    (void)err;
    D->baseline = v[0];
    D->routines |= GS_ROUTINE_MONTHLY;
    return 0;
}
static int o_fwpath(void *ctx, const char *const *v, struct gs_err *err)
{
    (void)err;
    D->framework_path = v[0];
    return 0;
}
static int o_prom(void *ctx, const char *const *v, struct gs_err *err)
{
    (void)err;
    D->prom.url = v[0];
    return 0;
}
static int o_match(void *ctx, const char *const *v, struct gs_err *err)
{
    (void)err;
    D->prom.match = v[0];
    return 0;
}
static int o_prom_config(void *ctx, const char *const *v, struct gs_err *err)
{
    (void)err;
    D->prom.config_path = v[0];
    return 0;
}

#undef D

static const struct gs_opt doctor_opts[] = {
    { "--window", 0, "DUR", o_window, "how long to sample (default 10s; 500ms, 2m ...)",
      .man = "How long to sample (default 10s)." },
    { "--interval", 0, "DUR", o_interval, "between snapshots (default 500ms: sawtooth periods from 2 s)",
      .man = "Between snapshots (default 500ms)." },
    { "--quick", 0, NULL, o_quick, "one snapshot: what is true now; window checks are listed as not evaluated",
      .man = "One snapshot: what is true now; the window checks are listed as not evaluated." },
    { "--format", 0, "text|json", o_format, "output (default text)", .comp = GS_COMP_CHOICES,
      .man = "The output (default text)." },
    { "--kernel-log", 0, "FILE", o_klog, "read the kernel log from FILE (saved dmesg, journal, /dev/kmsg dump)",
      .comp = GS_COMP_FILE,
      .man = "Read the kernel log from\n"
        ".Ar FILE\n"
        "(a saved dmesg, a journal, a\n"
        ".Pa /dev/kmsg\n"
        "dump)." },
    { "--no-kernel-log", 0, NULL, o_no_klog, "do not read the kernel log",
      .man = "Do not read the kernel log." },
    { "--expect-gpus", 0, "N", o_expect, "report fewer GPUs than N as critical",
      .man = "Report fewer GPUs than\n"
        ".Ar N\n"
        "as critical." },
    { "--db", 0, "FILE", o_db, "the recorder's database (default: gpuscope record's), read-only when it exists",
      .comp = GS_COMP_FILE,
      .man = "The recorder's database, read read-only when it exists (default: where\n"
        ".Xr gpuscope-record 1\n"
        "writes); fewer GPUs than it has seen is critical." },
    { "--no-history", 0, NULL, o_no_history, "do not read the recorder's database",
      .man = "Do not read the recorder's database." },
    { "--no-sysfs", 0, NULL, o_no_sysfs, "do not scan the PCI bus (sysfs) or /proc for /dev/nvidia* holders",
      .man = "Do not scan the PCI bus or\n"
        ".Pa /proc\n"
        "for holders of\n"
        ".Pa /dev/nvidia* ." },
    { "--id", 'i', "IDS", o_id, "only these GPUs (index, UUID or PCI bus id)", .comp = GS_COMP_GPU,
      .flags = GS_OPT_LIST,
      .man = "Only these GPUs." },
    { "--threshold", 0, "NAME=VAL", o_threshold, "override a threshold; --list-thresholds shows them",
      .flags = GS_OPT_REPEAT,
      .man = "Override a threshold; repeatable." },
    { "--list-thresholds", 0, NULL, o_list, "print every threshold with its value",
      .man = "Print every threshold with its value." },
    { "--daily", 0, NULL, o_daily, "the daily routine: utilization, memory > 90%, temperature, Xid count",
      .man = "The daily routine: utilization, memory above 90%, temperature, Xid count." },
    { "--weekly", 0, NULL, o_weekly, "the weekly routine: driver and CUDA against the installed frameworks",
      .man = "The weekly routine: driver and CUDA against the installed frameworks." },
    { "--monthly", 0, NULL, o_monthly, "the monthly routine: PCIe links, fans, load behaviour against history",
      .man = "The monthly routine: PCIe links, fans, load behaviour against history." },
    { "--routine", 0, "LIST", o_routine, "routines by name: daily,weekly,monthly or all", .comp = GS_COMP_CHOICES,
      .choices = "daily weekly monthly all", .flags = GS_OPT_LIST,
      .man = "Routines by name:\n"
        ".Cm daily , weekly , monthly\n"
        "or\n"
        ".Cm all ." },
    { "--baseline", 0, "NAME", o_baseline, "monthly: compare with this saved baseline (gpuscope baseline save)",
      .man = "Monthly: compare with this saved baseline\n"
        ".Pq Xr gpuscope-baseline 1 ." },
    { "--framework-path", 0, "DIRS", o_fwpath, "weekly: also search these site-packages directories (colon list)",
      .comp = GS_COMP_DIR,
      .man = "Weekly: also search these site-packages directories (a colon list)." },
    { "--explain", 0, "xid N", o_explain, "what the Xid catalog says about Xid N", .comp = GS_COMP_CHOICES,
      .choices = "xid",
      .man = "What the Xid catalog says about Xid\n"
        ".Ar N ." },
    { "--prometheus", 0, "URL", o_prom, "the fleet's health from a Prometheus instead (docs/FLEET.md)",
      .man = "The fleet's health instead of this machine's, from the Prometheus at\n"
        ".Ar URL :\n"
        "Xids in the last hour, ECC and row-remapping failures, throttling, GPUs missing\n"
        "against the day's count, utilization pinned over\n"
        ".Fl -window\n"
        "(default 15 minutes); each finding names the node and the GPU.\n"
        "See docs/FLEET.md." },
    { "--match", 0, "SELECTOR", o_match, "with --prometheus: only series matching '{label=\"value\",...}'",
      .man = "With\n"
        ".Fl -prometheus :\n"
        "only series matching these label matchers, such as\n"
        ".Ql {cluster=\"a\"} ." },
    { "--prometheus-config", 0, "FILE", o_prom_config, "credentials and TLS (Prometheus' http_config YAML)",
      .comp = GS_COMP_FILE,
      .man = "Credentials and TLS for\n"
        ".Fl -prometheus :\n"
        "Prometheus'\n"
        ".Cm http_config\n"
        "in YAML (basic_auth, authorization, bearer_token_file, tls_config)." },
};
const struct gs_cli doctor_cli = {
    .name = "doctor",
    .usage = "gpuscope doctor [options]",
    .about = "Sample the GPUs for a short window, read the kernel log, the PCI bus and the recorder's history,\n"
             "and report problems with their evidence, likely cause and what to do.",
    .opts = doctor_opts,
    .nopts = GS_NOPTS(doctor_opts),
    .footer = "Exit codes: 0 no problem (or info only), 6 warning, 7 critical, 2 usage, 3 no NVML/driver,\n"
              "4 no GPU. See docs/HEALTH.md.",
};


/* doctor --prometheus: the fleet module does the work; --window is how long
 * utilization must stay pinned. Exit status as on one node. */
static int doctor_fleet(const struct dargs *d)
{
    struct gs_err err = { 0 };
    struct gs_fleet_doctor_opts o = { .prom = d->prom, .window_s = d->window_set ? (double)d->window_ms / 1000 : 0,
                                      .json = d->json };
    void *sym = gs_module_symbol("fleet", "gs_fleet_doctor", &err);
    gs_fleet_doctor_fn fn;
    if (!sym) {
        gs_err_print(&err);
        return GS_EXIT_FAILURE;
    }
    memcpy(&fn, &sym, sizeof(fn));
    int worst = fn(&o, stdout, &err);
    if (worst < 0) {
        gs_err_print(&err);
        return gs_exit_from_errc(-worst);
    }
    return worst >= GS_SEV_CRITICAL ? EXIT_CRITICAL : worst == GS_SEV_WARNING ? EXIT_WARNING : GS_EXIT_OK;
}

static void sleep_ms(int64_t ms)
{
    struct timespec ts = { (time_t)(ms / 1000), (long)(ms % 1000) * 1000000L };
    while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
        ;
}

/* The PCI bus (sysfs) into the engine: NVIDIA display/3D devices and their AER
 * counters, at the start and the end of the window. Not with -i: a selection is
 * not the whole machine. */
struct dpci {
    bool read;
    int ndev;
    struct gs_err err;
};

/* On the simulator the real bus and /proc are not the simulated machine's:
 * compared only when a test points GPUSCOPE_SYS_ROOT at a tree made for it. */
static bool host_comparable(const struct gs_snapshot *snap)
{
    return !snap->sys.simulated || *gs_sys_root();
}

static void scan_pci(const struct dargs *d, struct gs_health *h, const struct gs_snapshot *snap, struct dpci *dp)
{
    struct gs_pci_dev devs[GS_PCI_MAX_DEVS];
    if (d->no_sysfs || d->only_ids)
        return;
    if (!host_comparable(snap)) {
        gs_err_set(&dp->err, GS_E_IO, "simulated GPUs: the PCI bus is not compared (GPUSCOPE_SYS_ROOT unset)");
        return;
    }
    struct gs_err e = { 0 };
    int n = gs_pci_scan(GS_PCI_VENDOR_NVIDIA, devs, GS_PCI_MAX_DEVS, &e);
    if (n < 0) {
        if (!dp->err.code)
            dp->err = e;
        return;
    }
    dp->read = true;
    dp->ndev = n;
    gs_health_add_pci(h, devs, (size_t)n);
}

static void replay_tick(void *arg, const struct gs_snapshot *snap, int64_t t_ms)
{
    struct dreplay *r = arg;
    if (snap->ngpus != r->live->ngpus || t_ms >= r->ref_wall_ms) {
        r->mismatched++;
        return;
    }
    for (uint32_t i = 0; i < snap->ngpus; i++)
        if (strcmp(snap->gpus[i].st.uuid, r->live->gpus[i].st.uuid)) {
            r->mismatched++; /* GPUs changed since then: that history is another machine's window */
            return;
        }
    gs_health_add(r->h, snap, t_ms - r->ref_wall_ms);
    if (!r->fed++)
        r->first_ms = t_ms;
    r->last_ms = t_ms;
}

/* The checks that need minutes (idle memory 300 s, leak, stuck fan ...) get
 * them from the recorder when it has been recording up to now: its last
 * minutes go into the engine before the first live snapshot. */
static void replay_history(const struct dargs *d, struct gs_health *h, const struct gs_snapshot *first,
                           struct dhist *dh)
{
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    int64_t wall = (int64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000;
    int64_t need_ms = (int64_t)d->cfg.idle_min_s * 1000 + 10000;
    if (!dh->read || d->window_ms >= need_ms || wall - dh->h.last_ms > 60000)
        return; /* no history, window enough, or a recorder that stopped a while ago */
    void *sym = gs_module_symbol("record", GS_RECORD_REPLAY_SYMBOL, &dh->replay_err);
    gs_record_replay_fn fn;
    memcpy(&fn, &sym, sizeof(fn));
    struct dreplay r = { h, first, wall, 0, 0, 0, 0 };
    if (!sym || fn(dh->path, wall - need_ms, replay_tick, &r, &dh->replay_err) < 0)
        return;
    dh->replayed = r.fed;
    dh->replayed_s = r.fed ? (double)(wall - r.first_ms) / 1000.0 : 0;
    if (r.fed)
        gs_health_set_live_start(h, 0);
}

/* Sample the window into the engine; returns snapshots taken, or a negative errc. */
static int sample_window(const struct dargs *d, struct gs_health *h, struct gs_snapshot *snap, struct dpci *dp,
                         struct dhist *dh, struct gs_err *err)
{
    struct gs_sampler_opts o = GS_SAMPLER_OPTS_INIT;
    struct gs_sampler *s;
    o.slow = GS_SLOW_SKIP;
    o.only_ids = d->only_ids;
    /* the link trains up under load within milliseconds: judge it only on readings taken with the
     * utilization, so read it at every snapshot (two cheap calls per GPU) rather than every 5 s */
    gs_fmask_set(&o.every_tick, GS_F_PCIE_GEN);
    gs_fmask_set(&o.every_tick, GS_F_PCIE_WIDTH);
    gs_sim_stepping_prepare();
    o.pyhook = GS_PYHOOK_ASYNC; /* fragmentation and allocator growth of hooked PyTorch processes */
    int rc = gs_sampler_open(&s, &o, err);
    if (rc < 0)
        return rc;
    int64_t n = d->window_ms / d->interval_ms + 1, t = 0, start = gs_clock_mono_ms();
    gs_sim_step_fn step = NULL;
    int taken = 0;
    for (int64_t k = 0; k < n; k++) {
        if (k > 0) {
            if (step) {
                step((double)d->interval_ms / 1000.0);
                t += d->interval_ms;
            } else {
                sleep_ms(start + k * d->interval_ms - gs_clock_mono_ms());
                t = gs_clock_mono_ms() - start;
            }
        }
        rc = gs_sampler_snapshot(s, snap, err);
        if (rc < 0 && rc != -GS_E_GPU_LOST && rc != -GS_E_BACKEND)
            break;
        if (k == 0) {
            step = gs_sim_clock_stepper(&snap->sys);
            replay_history(d, h, snap, dh);
        }
        gs_health_add(h, snap, t);
        if (k == 0 || k == n - 1)
            scan_pci(d, h, snap, dp);
        taken++;
    }
    gs_sampler_close(s);
    return taken;
}

/* A GPU busy or holding memory with no process listed: who holds its /dev/nvidiaN? */
static void scan_holders(const struct dargs *d, struct gs_health *h, const struct gs_snapshot *snap)
{
    struct gs_dev_holder v[64];
    uint64_t minors;
    if (d->no_sysfs || !host_comparable(snap) || !gs_health_holders_wanted(h, &minors))
        return;
    size_t n = gs_dev_holders(d->cfg.proc_root, minors, v, sizeof(v) / sizeof(v[0]));
    gs_health_add_holders(h, v, n);
}

/* --monthly: the load behaviour a month ago and now, from the same database. */
static void read_trend(const struct dargs *d, struct gs_health *h, struct dhist *dh)
{
    if (!(d->routines & GS_ROUTINE_MONTHLY))
        return;
    void *sym = gs_module_symbol("record", d->baseline ? GS_RECORD_BASELINE_TREND_SYMBOL : GS_RECORD_TREND_SYMBOL,
                                 &dh->trend_err);
    if (!sym)
        return;
    if (d->baseline) {
        gs_record_baseline_trend_fn fn;
        memcpy(&fn, &sym, sizeof(fn));
        if (fn(dh->path, d->baseline, &dh->trend, &dh->trend_err) < 0)
            return;
    } else {
        gs_record_trend_fn fn;
        memcpy(&fn, &sym, sizeof(fn));
        if (fn(dh->path, &dh->trend, &dh->trend_err) < 0)
            return;
    }
    dh->trend_read = true;
    gs_health_set_trend(h, &dh->trend);
}

/* Read the history when a database exists; the record module is loaded only then. */
static void read_history(const struct dargs *d, struct gs_health *h, struct dhist *dh)
{
    struct stat sb;
    if (d->no_history || d->only_ids) /* a selection is not the whole machine */
        return;
    if (d->db)
        snprintf(dh->path, sizeof(dh->path), "%s", d->db);
    else if (gs_path_history_db(dh->path, sizeof(dh->path)) < 0) /* as record writes it */
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
    read_trend(d, h, dh);
}

static void set_frameworks(const struct dargs *d, struct gs_health *h)
{
    struct gs_framework fw[GS_FRAMEWORKS_MAX];
    char searched[300];
    if (!(d->routines & GS_ROUTINE_WEEKLY))
        return;
    size_t n = gs_frameworks_find(d->framework_path, fw, GS_FRAMEWORKS_MAX, searched, sizeof(searched));
    gs_health_set_frameworks(h, fw, n, searched);
}

/* Everything one run learnt besides the findings. */
struct dreport {
    const struct gs_snapshot *snap;
    int taken;
    const struct gs_kmsg_log *klog;
    const struct gs_err *kerr;
    const struct dhist *dh;
    const struct dpci *pci;
    struct gs_unevaluated unev[16];
    size_t nunev;
};

static json_t *history_json(const struct dhist *dh)
{
    json_t *o = json_object();
    json_object_set_new(o, "read", json_boolean(dh->read));
    json_object_set_new(o, "path", dh->path[0] ? json_string(dh->path) : json_null());
    json_object_set_new(o, "gpus_seen", dh->read ? json_integer(dh->h.ngpus) : json_null());
    json_object_set_new(o, "error", dh->err.code ? json_string(dh->err.msg) : json_null());
    json_object_set_new(o, "replayed_ticks", json_integer(dh->replayed));
    json_object_set_new(o, "replayed_s", json_real(dh->replayed_s));
    if (dh->trend_read || dh->trend_err.code)
        json_object_set_new(o, "monthly_error", dh->trend_err.code ? json_string(dh->trend_err.msg) : json_null());
    return o;
}

static json_t *unevaluated_json(const struct dreport *r)
{
    json_t *a = json_array();
    for (size_t i = 0; i < r->nunev; i++) {
        const struct gs_unevaluated *u = &r->unev[i];
        json_t *o = json_pack("{s:s,s:i,s:f}", "code", u->code, "needs_s", (json_int_t)u->need_s, "window_s", u->have_s);
        json_object_set_new(o, "judged", u->judged[0] ? json_string(u->judged) : json_null());
        if (!strcmp(u->code, "proc.input_stall"))
            json_object_set_new(o, "longest_period_s", u->longest_s > 0 ? json_real(u->longest_s) : json_null());
        json_array_append_new(a, o);
    }
    return a;
}

static void print_json(const struct dargs *d, const struct gs_findings *f, const struct dreport *r)
{
    json_t *root = json_object(), *arr = json_array(), *k = json_object(), *pci = json_object();
    json_object_set_new(root, "window_s", json_real((double)d->window_ms / 1000.0));
    json_object_set_new(root, "interval_s", json_real((double)d->interval_ms / 1000.0));
    json_object_set_new(root, "snapshots", json_integer(r->taken));
    json_object_set_new(root, "gpus", json_integer(r->snap->ngpus));
    json_object_set_new(k, "read", json_boolean(!d->no_kernel_log));
    json_object_set_new(k, "source", json_string(r->klog->source));
    json_object_set_new(k, "lines", json_integer((json_int_t)r->klog->lines));
    json_object_set_new(k, "xids", json_integer((json_int_t)r->klog->n));
    json_object_set_new(k, "error", r->kerr->code ? json_string(r->kerr->msg) : json_null());
    json_object_set_new(root, "kernel_log", k);
    json_object_set_new(root, "history", history_json(r->dh));
    json_object_set_new(pci, "read", json_boolean(r->pci->read));
    json_object_set_new(pci, "nvidia_devices", r->pci->read ? json_integer(r->pci->ndev) : json_null());
    json_object_set_new(pci, "error", r->pci->err.code ? json_string(r->pci->err.msg) : json_null());
    json_object_set_new(root, "pci", pci);
    for (size_t i = 0; i < f->n; i++)
        json_array_append_new(arr, gs_finding_json(&f->v[i]));
    json_object_set_new(root, "findings", arr);
    json_object_set_new(root, "not_evaluated", unevaluated_json(r));
    enum gs_sev w = gs_findings_worst(f);
    json_object_set_new(root, "worst", w ? json_string(gs_sev_name(w)) : json_null());
    json_dumpf(root, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    fputc('\n', stdout);
    json_decref(root);
}

static void print_unevaluated(const struct dargs *d, const struct dreport *r)
{
    uint32_t most = 0;
    if (!r->nunev)
        return;
    printf("\nnot evaluated, or only in part (the window was %.0f s):\n", (double)d->window_ms / 1000.0);
    for (size_t i = 0; i < r->nunev; i++) {
        printf("  %-22s needs %u s%s%s\n", r->unev[i].code, r->unev[i].need_s, r->unev[i].judged[0] ? "; " : "",
               r->unev[i].judged);
        most = r->unev[i].need_s > most ? r->unev[i].need_s : most;
    }
    printf("  (give them time: --window %us)\n", most);
}

static void print_text(const struct dargs *d, const struct gs_findings *f, const struct dreport *r)
{
    const struct dhist *dh = r->dh;
    printf("gpuscope doctor: %u GPU%s, %d snapshot%s over %.0f s", r->snap->ngpus, r->snap->ngpus == 1 ? "" : "s",
           r->taken, r->taken == 1 ? "" : "s", (double)d->window_ms / 1000.0);
    if (d->no_kernel_log)
        printf(", kernel log not read\n\n");
    else if (r->kerr->code)
        printf(", kernel log unreadable: %s\n\n", r->kerr->msg);
    else
        printf(", kernel log %s: %zu lines, %zu Xid lines\n\n", r->klog->source, r->klog->lines, r->klog->n);
    if (dh->read && dh->replayed)
        printf("recorder history %s: %u GPU%s seen; its last %.0f s (%d ticks) evaluated with the window\n\n",
               dh->path, dh->h.ngpus, dh->h.ngpus == 1 ? "" : "s", dh->replayed_s, dh->replayed);
    else if (dh->read)
        printf("recorder history %s: %u GPU%s seen\n\n", dh->path, dh->h.ngpus, dh->h.ngpus == 1 ? "" : "s");
    else if (dh->err.code)
        printf("recorder history unreadable: %s\n\n", dh->err.msg);
    if (dh->trend_err.code)
        printf("monthly comparison: %s\n\n", dh->trend_err.msg);
    gs_findings_print(stdout, f, isatty(1) && !getenv("NO_COLOR"));
    print_unevaluated(d, r);
}

int cmd_doctor(int argc, char **argv, const struct gs_cmd_ctx *ctx)
{
    struct dargs d = { .window_ms = 10000, .interval_ms = 500 };
    struct gs_err err = { 0 }, kerr = { 0 };
    struct gs_kmsg_log klog = { 0 };
    struct gs_findings f = { 0 };
    struct gs_snapshot snap;
    struct dpci pci = { 0 };
    static struct dhist dh; /* ~40 KB: not on the stack */
    (void)ctx;

    gs_health_cfg_default(&d.cfg);
    d.cfg.proc_root = gs_proc_root_env(NULL); /* as the sampler: tests and containers */
    int rc = gs_cli_parse(&doctor_cli, argc, argv, &d, &err);
    if (rc)
        return rc > 0 ? GS_EXIT_OK : (gs_err_print(&err), GS_EXIT_USAGE);
    if ((d.prom.match || d.prom.config_path) && !d.prom.url)
        return gs_err_set(&err, GS_E_USAGE, "%s goes with --prometheus URL", d.prom.match ? "--match" : "--prometheus-config"),
               gs_err_print(&err), GS_EXIT_USAGE;
    if (d.prom.url)
        return doctor_fleet(&d);
    if (d.routines & GS_ROUTINE_DAILY && !d.window_set)
        d.window_ms = 60000; /* the daily look at utilization and memory: a minute */
    int64_t need = d.window_ms / d.interval_ms + 2; /* the whole window in the engine's rings */
    if (need > (int64_t)d.cfg.ring_samples)
        d.cfg.ring_samples = (uint32_t)(need < 100000 ? need : 100000);
    struct gs_health *h = gs_health_new(&d.cfg);
    if (!h)
        return GS_EXIT_FAILURE;
    gs_health_set_routines(h, d.routines);
    gs_snapshot_init(&snap);
    read_history(&d, h, &dh); /* before the window: its recent ticks may go into the engine first */
    int taken = sample_window(&d, h, &snap, &pci, &dh, &err);
    int open_rc = taken < 0 ? taken : 0;
    if (taken < 0) {
        gs_health_set_open_error(h, &err);
        taken = 0;
    }
    if (!d.no_kernel_log) {
        gs_kmsg_read(d.kernel_log, &klog, &kerr);
        gs_health_add_kmsg(h, klog.v, klog.n);
    }
    if (open_rc == 0) {
        scan_holders(&d, h, &snap);
        set_frameworks(&d, h);
    }
    int eval_rc = gs_health_eval(h, &f);
    struct dreport r = { .snap = &snap, .taken = taken, .klog = &klog, .kerr = &kerr, .dh = &dh, .pci = &pci };
    if (open_rc == 0)
        r.nunev = gs_health_unevaluated(h, r.unev, sizeof(r.unev) / sizeof(r.unev[0]));
    if (d.json)
        print_json(&d, &f, &r);
    else
        print_text(&d, &f, &r);
    enum gs_sev worst = gs_findings_worst(&f);
    int code = open_rc < 0 ? gs_exit_from_errc(open_rc)
               : worst == GS_SEV_CRITICAL ? EXIT_CRITICAL
               : worst == GS_SEV_WARNING  ? EXIT_WARNING
                                          : GS_EXIT_OK;
    if (eval_rc < 0 && open_rc == 0) {
        fprintf(stderr, "gpuscope doctor: out of memory: %zu finding%s could not be kept, so the report above "
                        "is incomplete\n", f.lost, f.lost == 1 ? "" : "s");
        code = gs_exit_from_errc(eval_rc);
    }
    gs_findings_free(&f);
    gs_kmsg_free(&klog);
    gs_health_free(h);
    gs_snapshot_release(&snap);
    return code;
}
