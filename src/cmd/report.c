/* SPDX-License-Identifier: MIT */
/*
 * report.c - `gpuscope report`: option parsing, then src/record/report.c.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "record/jobs.h"
#include "record/fleet_report.h"
#include "record/record.h"

static void report_usage(FILE *out)
{
    fprintf(out,
        "usage: gpuscope report [--since DURATION | --from TIME --to TIME] [options]\n\n"
        "What the history says: an HTML report (one self-contained file), terminal charts, CSV or NDJSON.\n\n"
        "  --db FILE            history database (default: where 'gpuscope record' writes)\n"
        "  --since DURATION     the last DURATION (default 24h): 90s, 15m, 2h, 3d\n"
        "  --from TIME, --to TIME  RFC 3339 or 'YYYY-MM-DD HH:MM[:SS]' (local), '-2h', 'now', @EPOCH\n"
        "  -i, --id INDEX       one GPU\n"
        "  --pid PID            one process (per-process chart)\n"
        "  -f, --format FMT     html (default), term, csv, json (NDJSON)\n"
        "  -o, --output FILE    write there instead of stdout\n"
        "  --job ID             an HPC job's GPU summary from this machine's history (gpuscope slurm\n"
        "                       prolog/epilog; -f json: as JSON); with --prometheus: the fleet's job (below)\n"
        "  --user NAME          jobs of NAME in the range (--since, default 24h): GPU-hours, idle GPU-hours,\n"
        "                       energy per job and in all (--user all: every user; -f json: NDJSON)\n\n"
        "The fleet over the range, from Prometheus (docs/FLEET.md): per-node table, node x time\n"
        "heatmaps, idle GPU-hours and energy per node and per namespace/job (html or term):\n"
        "  --prometheus URL     the Prometheus that scrapes gpuscope serve or dcgm-exporter\n"
        "  --match SELECTOR     only these series, e.g. '{cluster=\"a\"}'\n"
        "  --prometheus-config FILE  basic auth, bearer token, TLS (Prometheus' http_config YAML)\n"
        "One node, job or pod of the fleet instead (per-GPU table, GPU x time heatmaps; may be combined):\n"
        "  --node HOST          its Hostname label (or instance, where the exporter sets no Hostname)\n"
        "  --job ID             with --prometheus: the GPUs of Slurm job ID (the hpc_job label), not the\n"
        "                       record database's accounting\n"
        "  --pod NAME, --namespace NS  the GPUs of a Kubernetes pod / namespace (pod, namespace labels)\n");
}

/* --job / --user: the HPC job accounting (record/jobsum.c), in text or JSON. */
static int report_jobs(const struct gs_report_opts *o, const char *job, const char *user)
{
    struct gs_err err = { 0 };
    bool json = o->format == GS_REPORT_JSON;
    if (o->format != GS_REPORT_TERM && !json && o->format != GS_REPORT_HTML) {
        fprintf(stderr, "gpuscope report: --job and --user print text (-f term) or JSON (-f json)\n");
        return GS_EXIT_USAGE;
    }
    FILE *out = o->output && strcmp(o->output, "-") ? fopen(o->output, "w") : stdout;
    if (!out) {
        fprintf(stderr, "gpuscope report: cannot write %s\n", o->output);
        return GS_EXIT_FAILURE;
    }
    int rc = job ? gs_report_job(o->db, job, json, out, &err)
                 : gs_report_user(o->db, strcmp(user, "all") ? user : NULL, o->from_ms, o->to_ms, json, out, &err);
    if (out != stdout && fclose(out) != 0 && rc == 0)
        rc = gs_err_set(&err, GS_E_IO, "writing %s failed", o->output);
    if (rc < 0) {
        gs_err_print(&err);
        return gs_exit_from_errc(err.code);
    }
    return GS_EXIT_OK;
}

int cmd_report(int argc, char **argv, const struct gs_cmd_ctx *ctx)
{
    enum { O_DB = 256, O_SINCE, O_FROM, O_TO, O_PID, O_JOB, O_USER, O_PROM, O_MATCH, O_PROMCFG, O_NODE, O_POD, O_NS };
    static const struct option lo[] = {
        { "db", 1, NULL, O_DB }, { "since", 1, NULL, O_SINCE }, { "from", 1, NULL, O_FROM }, { "to", 1, NULL, O_TO },
        { "id", 1, NULL, 'i' }, { "pid", 1, NULL, O_PID }, { "format", 1, NULL, 'f' }, { "output", 1, NULL, 'o' },
        { "job", 1, NULL, O_JOB }, { "user", 1, NULL, O_USER }, { "help", 0, NULL, 'h' },
        { "prometheus", 1, NULL, O_PROM }, { "match", 1, NULL, O_MATCH }, { "prometheus-config", 1, NULL, O_PROMCFG },
        { "node", 1, NULL, O_NODE }, { "pod", 1, NULL, O_POD }, { "namespace", 1, NULL, O_NS },
        { NULL, 0, NULL, 0 },
    };
    const char *job = NULL, *user = NULL;
    struct gs_report_opts o = { .gpu_index = -1, .format = GS_REPORT_HTML, .width = 80 };
    struct gs_frep_opts fo = { 0 };
    int64_t now = gs_now_ms(), since = 24 * 3600 * 1000LL;
    const char *from = NULL, *to = NULL, *cols = getenv("COLUMNS");
    int c;
    (void)ctx;
    if (cols && strtol(cols, NULL, 10) > 40)
        o.width = (unsigned)strtol(cols, NULL, 10);
    while ((c = getopt_long(argc, argv, "i:f:o:h", lo, NULL)) != -1) {
        switch (c) {
        case O_DB: o.db = optarg; break;
        case O_SINCE:
            if (gs_parse_duration_ms(optarg, &since) < 0 || since <= 0) {
                fprintf(stderr, "gpuscope report: bad --since '%s' (try 2h, 30m, 7d)\n", optarg);
                return GS_EXIT_USAGE;
            }
            break;
        case O_FROM: from = optarg; break;
        case O_TO: to = optarg; break;
        case 'i': o.gpu_index = (int)strtol(optarg, NULL, 10); break;
        case O_PID: o.pid = strtol(optarg, NULL, 10); break;
        case O_JOB: job = optarg; break;
        case O_USER: user = optarg; break;
        case 'f':
            if (!strcmp(optarg, "html")) o.format = GS_REPORT_HTML;
            else if (!strcmp(optarg, "term")) o.format = GS_REPORT_TERM;
            else if (!strcmp(optarg, "csv")) o.format = GS_REPORT_CSV;
            else if (!strcmp(optarg, "json") || !strcmp(optarg, "ndjson")) o.format = GS_REPORT_JSON;
            else {
                fprintf(stderr, "gpuscope report: --format wants html, term, csv or json\n");
                return GS_EXIT_USAGE;
            }
            break;
        case 'o': o.output = optarg; break;
        case O_PROM: fo.url = optarg; break;
        case O_MATCH: fo.match = optarg; break;
        case O_PROMCFG: fo.config = optarg; break;
        case O_NODE: fo.node = optarg; break;
        case O_POD: fo.pod = optarg; break;
        case O_NS: fo.ns = optarg; break;
        case 'h': report_usage(stdout); return GS_EXIT_OK;
        default: report_usage(stderr); return GS_EXIT_USAGE;
        }
    }
    o.to_ms = now;
    o.from_ms = now - since;
    char why[256];
    const char *bad = NULL;
    if (to && gs_parse_time_why(to, now, &o.to_ms, why, sizeof(why)) < 0)
        bad = "--to";
    else if (from && gs_parse_time_why(from, now, &o.from_ms, why, sizeof(why)) < 0)
        bad = "--from";
    if (bad) {
        fprintf(stderr, "gpuscope report: bad %s '%s': %s\n  hint: times are RFC 3339 (2024-05-01T03:00:00+02:00),"
                " 'YYYY-MM-DD[ HH:MM[:SS]]' in local time, '-2h', 'now' or @EPOCH\n", bad, bad[2] == 't' ? to : from,
                why);
        return GS_EXIT_USAGE;
    }
    if (to && !from)
        o.from_ms = o.to_ms - since;
    if (o.to_ms <= o.from_ms) {
        fprintf(stderr, "gpuscope report: --to must be after --from\n");
        return GS_EXIT_USAGE;
    }
    struct gs_err err = { 0 };
    if (!fo.url && (fo.match || fo.config || fo.node || fo.pod || fo.ns)) {
        fprintf(stderr, "gpuscope report: --match, --prometheus-config, --node, --pod and --namespace go with "
                "--prometheus URL\n");
        return GS_EXIT_USAGE;
    }
    if (fo.url && (o.format == GS_REPORT_CSV || o.format == GS_REPORT_JSON || o.db || o.gpu_index >= 0 || o.pid)) {
        fprintf(stderr, "gpuscope report: --prometheus writes html or term; --db, -i and --pid are for one node's "
                "history\n");
        return GS_EXIT_USAGE;
    }
    if (fo.url && user) {
        fprintf(stderr, "gpuscope report: --user reads this machine's history, not --prometheus\n");
        return GS_EXIT_USAGE;
    }
    if (fo.url) {
        fo.job = job; /* the fleet's Slurm job: the hpc_job label */
        const char *const v[][2] = { { "--node", fo.node }, { "--job", fo.job }, { "--pod", fo.pod },
                                     { "--namespace", fo.ns } };
        for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
            if (v[i][1] && (!*v[i][1] || gs_pq_value_check(v[i][0], v[i][1], &err) < 0)) {
                if (!*v[i][1])
                    fprintf(stderr, "gpuscope report: %s wants a name\n", v[i][0]);
                else
                    gs_err_print(&err);
                return GS_EXIT_USAGE;
            }
        }
    } else if (job || user) {
        return report_jobs(&o, job, user);
    }
    if (fo.url ? gs_fleet_report_run(&o, &fo, &err) < 0 : gs_report_run(&o, &err) < 0) {
        gs_err_print(&err);
        return gs_exit_from_errc(err.code);
    }
    return GS_EXIT_OK;
}
