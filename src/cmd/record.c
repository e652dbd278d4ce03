/* SPDX-License-Identifier: MIT */
/*
 * record.c - `gpuscope record`: option parsing, then the recorder
 * (src/record/recorder.c). `--estimate` states the disk use up front.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/opts.h"
#include "core/sampler.h"
#include "record/record.h"

#define O ((struct gs_record_opts *)ctx)
static int duration_opt(const char *what, const char *v, int64_t *ms, struct gs_err *err)
{
    if (gs_parse_duration_ms(v, ms) < 0 || *ms <= 0)
        return gs_err_set(err, GS_E_USAGE, "bad %s '%s'", what, v);
    return 0;
}
static int o_interval(void *ctx, const char *const *v, struct gs_err *err)
{
    int64_t ms;
    int rc = duration_opt("--interval", v[0], &ms, err);
    if (rc == 0) {
        O->interval_ms = (uint32_t)ms;
        O->interval_given = true;
    }
    return rc;
}
static int o_proc_interval(void *ctx, const char *const *v, struct gs_err *err)
{
    int64_t ms;
    int rc = duration_opt("--proc-interval", v[0], &ms, err);
    if (rc == 0)
        O->proc_interval_ms = (uint32_t)ms;
    return rc;
}
static int o_retention(void *ctx, const char *const *v, struct gs_err *err)
{
    return duration_opt("--retention", v[0], &O->keep_full_ms, err);
}
static int o_rollup_retention(void *ctx, const char *const *v, struct gs_err *err)
{
    return duration_opt("--rollup-retention", v[0], &O->keep_rollup_ms, err);
}
static int o_step(void *ctx, const char *const *v, struct gs_err *err)
{
    return duration_opt("--step", v[0], &O->step_ms, err);
}
static int o_max_size(void *ctx, const char *const *v, struct gs_err *err)
{
    if (gs_parse_size(v[0], &O->max_size_bytes) < 0)
        return gs_err_set(err, GS_E_USAGE, "bad --max-size '%s'", v[0]);
    return 0;
}
static int o_ticks(void *ctx, const char *const *v, struct gs_err *err)
{
    long n;
    int rc = gs_opt_long("--ticks", v[0], 0, 0x7fffffffL, &n, err);
    O->ticks = (uint64_t)n;
    return rc;
}
static int o_rw_max(void *ctx, const char *const *v, struct gs_err *err)
{
    long n;
    if (gs_opt_long("--remote-write-max-batch", v[0], 1, 100000, &n, err) < 0)
        return gs_err_set(err, GS_E_USAGE, "bad --remote-write-max-batch (samples, 1 to 100000) '%s'", v[0]);
    O->rw_max_batch = (uint32_t)n;
    return 0;
}
static int o_rw_drain(void *ctx, const char *const *v, struct gs_err *err)
{
    if (gs_parse_duration_ms(v[0], &O->rw_drain_ms) < 0 || O->rw_drain_ms < 0)
        return gs_err_set(err, GS_E_USAGE, "bad --remote-write-drain '%s'", v[0]);
    return 0;
}
static int o_start(void *ctx, const char *const *v, struct gs_err *err)
{
    char why[256];
    if (gs_parse_time_why(v[0], gs_now_ms(), &O->start_ms, why, sizeof(why)) < 0)
        return gs_err_set(err, GS_E_USAGE, "bad --start '%s': %s", v[0], why);
    return 0;
}
/* `gpuscope record status`, the same as --status. */
static int o_status_word(void *ctx, const char *const *v, struct gs_err *err)
{
    if (strcmp(v[0], "status"))
        return gs_err_set(err, GS_E_USAGE, "unexpected argument '%s'", v[0]);
    O->status = true;
    return 0;
}
#undef O

#define S(m) GS_OPT_STORE_STR(struct gs_record_opts, m)
#define T(m) GS_OPT_STORE_TRUE(struct gs_record_opts, m)
static const struct gs_opt record_opts[] = {
    { NULL, 0, "status", o_status_word, "the same as --status", .comp = GS_COMP_CHOICES },
    { "--db", 0, "FILE", NULL, "database (default $XDG_STATE_HOME/gpuscope/history.db,\n"
      "/var/lib/gpuscope/history.db for root)", .comp = GS_COMP_FILE, S(db),
      .man = "The database (default: see\n"
        ".Sx FILES ) ." },
    { "--interval", 'd', "SECONDS", o_interval, "sampling interval (default 1)",
      .man = "The sampling interval (default 1)." },
    { "--proc-interval", 0, "SECONDS", o_proc_interval, "per-process samples (default 5; lifetimes every tick)",
      .man = "Per-process samples (default 5; lifetimes are kept every tick)." },
    { "--retention", 0, "DURATION", o_retention, "full resolution kept (default 48h), then 1-minute rollups",
      .man = "How long full resolution is kept (default 48h), before one-minute rollups." },
    { "--rollup-retention", 0, "DURATION", o_rollup_retention, "rollups kept (default 90d), then deleted",
      .man = "How long rollups are kept (default 90d)." },
    { "--max-size", 0, "SIZE", o_max_size, "cap the database (e.g. 2G): the oldest data goes first",
      .man = "Cap the database (such as 2G): the oldest data goes first." },
    { "--id", 'i', "IDS", NULL, "only these GPUs", .comp = GS_COMP_GPU, .flags = GS_OPT_LIST, S(only_ids),
      .man = "Only these GPUs." },
    { "--estimate", 0, NULL, NULL, "print the disk space this configuration takes, and exit", T(estimate),
      .man = "Print the disk space this configuration takes, and exit." },
    { "--annotate-fifo", 0, "PATH", NULL, "each line written to this FIFO (created if absent) becomes\n"
      "an annotation: echo \"epoch 3\" > PATH", .comp = GS_COMP_FILE, S(annotate_fifo),
      .man = "Each line written to this FIFO (created when absent) becomes an annotation." },
    { "--quiet", 'q', NULL, NULL, "no start-up line", T(quiet),
      .man = "No start-up line." },
    { "--remote-write", 0, "URL", NULL, "also send every sample to this Prometheus remote-write\n"
      "endpoint (the database queues what is not sent yet)", S(rw_url),
      .man = "Also send every sample to this Prometheus remote-write 1.0 endpoint\n"
        "(Prometheus, VictoriaMetrics, Mimir, Thanos); the database queues what is not\n"
        "sent yet, so nothing is lost while the receiver is down." },
    { "--remote-write-config", 0, "FILE", NULL, "its remote_write settings (auth, TLS, headers,\n"
      "write_relabel_configs, queue_config; docs/RECORD.md)", .comp = GS_COMP_FILE, S(rw_config),
      .man = "One entry of Prometheus'\n"
        ".Cm remote_write\n"
        "list: url, basic_auth, authorization, bearer_token_file, tls_config, headers,\n"
        "write_relabel_configs (keep, drop), queue_config." },
    { "--remote-write-max-batch", 0, "N", o_rw_max, "samples per request (default 10000)",
      .man = "At most\n"
        ".Ar N\n"
        "samples a request (default 10000)." },
    { "--remote-write-drain", 0, "DURATION", o_rw_drain, "at a stop, keep sending what is queued this long\n"
      "(default 10s; the rest is sent by the next recorder)",
      .man = "At a stop, keep sending what is queued this long (default 10s)." },
    { "--status", 0, NULL, NULL, "the remote-write queue of the database, and exit", T(status),
      .man = "Print the remote-write queue of the database (pending samples, oldest\n"
        "pending, last success, last error), and exit." },
    { "--ticks", 0, "N", o_ticks, "stop after N ticks", .section = "test options (virtual time, docs/RECORD.md):",
      .man = "Stop after\n"
        ".Ar N\n"
        "ticks." },
    { "--step", 0, "DURATION", o_step, "each tick advances time by DURATION without sleeping",
      .man = "Each tick advances time by\n"
        ".Ar DURATION\n"
        "without sleeping." },
    { "--clock-file", 0, "PATH", NULL, "write the scenario time there (GPUSCOPE_SIM_CLOCK=file:PATH)",
      .comp = GS_COMP_FILE, S(clock_file),
      .man = "Write the scenario time there\n"
        ".Pq Ev GPUSCOPE_SIM_CLOCK Ns = Ns Cm file : Ns Ar PATH ." },
    { "--start", 0, "TIME", o_start, "virtual time of the first tick (default now)",
      .man = "The virtual time of the first tick (default now)." },
};
#undef S
#undef T

const struct gs_cli record_cli = {
    .name = "record",
    .usage = "gpuscope record [options]",
    .about = "Record every GPU sample, process and event into an SQLite history database\n"
             "(read it with 'gpuscope report', annotate it with 'gpuscope mark').",
    .opts = record_opts,
    .nopts = GS_NOPTS(record_opts),
};

static void human(uint64_t b, char *buf, size_t len)
{
    const char *u[] = { "B", "KiB", "MiB", "GiB", "TiB" };
    double v = (double)b;
    int i = 0;
    for (; v >= 1024 && i < 4; i++)
        v /= 1024;
    snprintf(buf, len, "%.1f %s", v, u[i]);
}

static int record_estimate(const struct gs_record_opts *o)
{
    struct gs_sampler_opts so = GS_SAMPLER_OPTS_INIT;
    struct gs_sampler *s;
    struct gs_err err = { 0 };
    struct gs_snapshot snap;
    so.only_ids = o->only_ids;
    so.slow = GS_SLOW_SKIP;
    if (gs_sampler_open(&s, &so, &err) < 0) {
        gs_err_print(&err);
        return gs_exit_from_errc(err.code);
    }
    gs_snapshot_init(&snap);
    gs_sampler_snapshot(s, &snap, &err);
    /* Process rows are per process and GPU; people count processes. */
    uint32_t pairs = 0, nprocs = 0;
    for (uint32_t i = 0; i < snap.ngpus; i++) {
        pairs += snap.gpus[i].nprocs;
        for (uint32_t k = 0; k < snap.gpus[i].nprocs; k++) {
            uint32_t pid = snap.gpus[i].procs[k].pid;
            bool seen = false;
            for (uint32_t j = 0; j < i && !seen; j++)
                for (uint32_t m = 0; m < snap.gpus[j].nprocs && !seen; m++)
                    seen = snap.gpus[j].procs[m].pid == pid;
            for (uint32_t m = 0; m < k && !seen; m++)
                seen = snap.gpus[i].procs[m].pid == pid;
            nprocs += !seen;
        }
    }
    uint64_t full, roll, proc;
    uint64_t total = gs_record_estimate_bytes(snap.ngpus, pairs, o, &full, &roll, &proc);
    char a[32], b[32], c[32], d[32];
    human(full, a, sizeof(a));
    human(roll, b, sizeof(b));
    human(proc, c, sizeof(c));
    human(total, d, sizeof(d));
    char pairs_txt[48] = "";
    if (pairs != nprocs)
        snprintf(pairs_txt, sizeof(pairs_txt), " (%u process-GPU pairs)", pairs);
    printf("%u GPUs, %u processes%s now, every %.3g s:\n"
           "  full resolution (%.0f h):      %s\n"
           "  per-process (+ rollups):     %s\n"
           "  one-minute rollups (%.0f days): %s\n"
           "  total:                        %s%s\n",
           snap.ngpus, nprocs, pairs_txt, (o->interval_ms ? o->interval_ms : 1000) / 1000.0,
           (o->keep_full_ms ? o->keep_full_ms : GS_STORE_KEEP_FULL_MS) / 3600e3, a, c,
           (o->keep_rollup_ms ? o->keep_rollup_ms : GS_STORE_KEEP_ROLLUP_MS) / 86400e3, b, d,
           o->max_size_bytes && total == o->max_size_bytes ? " (the --max-size cap)" : "");
    gs_snapshot_release(&snap);
    gs_sampler_close(s);
    return GS_EXIT_OK;
}

int cmd_record(int argc, char **argv, const struct gs_cmd_ctx *ctx)
{
    struct gs_record_opts o = { .interval_ms = 1000, .proc_interval_ms = 5000, .rw_drain_ms = 10000 };
    struct gs_err err = { 0 };
    (void)ctx;
    int rc = gs_cli_parse(&record_cli, argc, argv, &o, &err);
    if (rc)
        return rc > 0 ? GS_EXIT_OK : gs_cli_fail(&record_cli, &err);
    if (o.estimate)
        return record_estimate(&o);
    if (o.status) {
        if (gs_record_status(&o, stdout, &err) < 0) {
            gs_err_print(&err);
            return gs_exit_from_errc(err.code);
        }
        return GS_EXIT_OK;
    }
    if (gs_record_run(&o, &err) < 0) {
        gs_err_print(&err);
        return err.code == GS_E_USAGE ? GS_EXIT_FAILURE : gs_exit_from_errc(err.code);
    }
    return GS_EXIT_OK;
}
