/* SPDX-License-Identifier: MIT */
/*
 * record.c - `gpuscope record`: option parsing, then the recorder
 * (src/record/recorder.c). `--estimate` states the disk use up front.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "core/sampler.h"
#include "record/record.h"

static void record_usage(FILE *out)
{
    fprintf(out,
        "usage: gpuscope record [options]\n\n"
        "Record every GPU sample, process and event into an SQLite history database\n"
        "(read it with 'gpuscope report', annotate it with 'gpuscope mark').\n\n"
        "  --db FILE              database (default $XDG_STATE_HOME/gpuscope/history.db,\n"
        "                         /var/lib/gpuscope/history.db for root)\n"
        "  -d, --interval SECONDS sampling interval (default 1)\n"
        "  --proc-interval SECONDS per-process samples (default 5; lifetimes every tick)\n"
        "  --retention DURATION   full resolution kept (default 48h), then 1-minute rollups\n"
        "  --rollup-retention DURATION  rollups kept (default 90d), then deleted\n"
        "  --max-size SIZE        cap the database (e.g. 2G): the oldest data goes first\n"
        "  -i, --id IDS           only these GPUs\n"
        "  --estimate             print the disk space this configuration takes, and exit\n"
        "  --annotate-fifo PATH   each line written to this FIFO (created if absent) becomes\n"
        "                         an annotation: echo \"epoch 3\" > PATH\n"
        "  -q, --quiet            no start-up line\n"
        "  --remote-write URL     also send every sample to this Prometheus remote-write\n"
        "                         endpoint (the database queues what is not sent yet)\n"
        "  --remote-write-config FILE  its remote_write settings (auth, TLS, headers,\n"
        "                         write_relabel_configs, queue_config; docs/RECORD.md)\n"
        "  --remote-write-max-batch N  samples per request (default 10000)\n"
        "  --remote-write-drain DURATION  at a stop, keep sending what is queued this long\n"
        "                         (default 10s; the rest is sent by the next recorder)\n"
        "  --status               the remote-write queue of the database, and exit\n"
        "test options (virtual time, docs/RECORD.md):\n"
        "  --ticks N              stop after N ticks\n"
        "  --step DURATION        each tick advances time by DURATION without sleeping\n"
        "  --clock-file PATH      write the scenario time there (GPUSCOPE_SIM_CLOCK=file:PATH)\n"
        "  --start TIME           virtual time of the first tick (default now)\n");
}

static int bad(const char *what, const char *v)
{
    fprintf(stderr, "gpuscope record: bad %s '%s'\n", what, v);
    return GS_EXIT_USAGE;
}

static int duration_opt(const char *v, int64_t *ms, const char *what)
{
    return gs_parse_duration_ms(v, ms) < 0 || *ms <= 0 ? bad(what, v) : 0;
}

static int record_parse(int argc, char **argv, struct gs_record_opts *o)
{
    enum { O_DB = 256, O_PIV, O_RET, O_RRET, O_MAX, O_EST, O_TICKS, O_STEP, O_CLOCK, O_START, O_FIFO, O_RW,
           O_RWCFG, O_RWMAX, O_RWDRAIN, O_STATUS };
    static const struct option lo[] = {
        { "db", 1, NULL, O_DB }, { "interval", 1, NULL, 'd' }, { "proc-interval", 1, NULL, O_PIV },
        { "retention", 1, NULL, O_RET }, { "rollup-retention", 1, NULL, O_RRET }, { "max-size", 1, NULL, O_MAX },
        { "id", 1, NULL, 'i' }, { "estimate", 0, NULL, O_EST }, { "quiet", 0, NULL, 'q' },
        { "ticks", 1, NULL, O_TICKS }, { "step", 1, NULL, O_STEP }, { "clock-file", 1, NULL, O_CLOCK },
        { "start", 1, NULL, O_START }, { "annotate-fifo", 1, NULL, O_FIFO }, { "help", 0, NULL, 'h' },
        { "remote-write", 1, NULL, O_RW }, { "remote-write-config", 1, NULL, O_RWCFG },
        { "remote-write-max-batch", 1, NULL, O_RWMAX }, { "remote-write-drain", 1, NULL, O_RWDRAIN },
        { "status", 0, NULL, O_STATUS },
        { NULL, 0, NULL, 0 },
    };
    int c, rc = 0;
    int64_t ms;
    char why[256];
    while (!rc && (c = getopt_long(argc, argv, "d:i:qh", lo, NULL)) != -1) {
        switch (c) {
        case O_DB: o->db = optarg; break;
        case 'd':
            if (!(rc = duration_opt(optarg, &ms, "--interval"))) {
                o->interval_ms = (uint32_t)ms;
                o->interval_given = true;
            }
            break;
        case O_PIV: if (!(rc = duration_opt(optarg, &ms, "--proc-interval"))) o->proc_interval_ms = (uint32_t)ms; break;
        case O_RET: rc = duration_opt(optarg, &o->keep_full_ms, "--retention"); break;
        case O_RRET: rc = duration_opt(optarg, &o->keep_rollup_ms, "--rollup-retention"); break;
        case O_MAX: if (gs_parse_size(optarg, &o->max_size_bytes) < 0) rc = bad("--max-size", optarg); break;
        case 'i': o->only_ids = optarg; break;
        case O_EST: o->estimate = true; break;
        case 'q': o->quiet = true; break;
        case O_TICKS: o->ticks = strtoull(optarg, NULL, 10); break;
        case O_STEP: rc = duration_opt(optarg, &o->step_ms, "--step"); break;
        case O_CLOCK: o->clock_file = optarg; break;
        case O_FIFO: o->annotate_fifo = optarg; break;
        case O_RW: o->rw_url = optarg; break;
        case O_RWCFG: o->rw_config = optarg; break;
        case O_RWMAX: {
            char *end;
            unsigned long v = strtoul(optarg, &end, 10);
            if (*end || !*optarg || v < 1 || v > 100000)
                rc = bad("--remote-write-max-batch (samples, 1 to 100000)", optarg);
            o->rw_max_batch = (uint32_t)v;
            break;
        }
        case O_RWDRAIN:
            if (gs_parse_duration_ms(optarg, &o->rw_drain_ms) < 0 || o->rw_drain_ms < 0)
                rc = bad("--remote-write-drain", optarg);
            break;
        case O_STATUS: o->status = true; break;
        case O_START:
            if (gs_parse_time_why(optarg, gs_now_ms(), &o->start_ms, why, sizeof(why)) < 0) {
                fprintf(stderr, "gpuscope record: bad --start '%s': %s\n", optarg, why);
                rc = GS_EXIT_USAGE;
            }
            break;
        case 'h': record_usage(stdout); return -1;
        default: record_usage(stderr); return GS_EXIT_USAGE;
        }
    }
    if (!rc && optind < argc && !strcmp(argv[optind], "status")) { /* gpuscope record status */
        o->status = true;
        optind++;
    }
    if (!rc && optind < argc) {
        fprintf(stderr, "gpuscope record: unexpected argument '%s'\n", argv[optind]);
        rc = GS_EXIT_USAGE;
    }
    return rc;
}

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
    int rc = record_parse(argc, argv, &o);
    if (rc)
        return rc < 0 ? GS_EXIT_OK : rc;
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
