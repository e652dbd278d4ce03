/* SPDX-License-Identifier: MIT */
/*
 * report.c - `gpuscope report`: option parsing, then src/record/report.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/opts.h"
#include "record/jobs.h"
#include "record/fleet_report.h"
#include "record/record.h"

/* What the command line says, before the range is worked out. */
struct rargs {
    struct gs_report_opts o;
    struct gs_frep_opts fo;
    const char *job, *user, *from, *to;
    int64_t since;
};

#define R ((struct rargs *)ctx)
static int o_since(void *ctx, const char *const *v, struct gs_err *err)
{
    if (gs_parse_duration_ms(v[0], &R->since) < 0 || R->since <= 0)
        return gs_err_set(err, GS_E_USAGE, "bad --since '%s' (try 2h, 30m, 7d)", v[0]);
    return 0;
}
static int o_id(void *ctx, const char *const *v, struct gs_err *err)
{
    long n;
    int rc = gs_opt_long("--id", v[0], 0, 1023, &n, err);
    R->o.gpu_index = (int)n;
    return rc;
}
static int o_pid(void *ctx, const char *const *v, struct gs_err *err)
{
    return gs_opt_long("--pid", v[0], 1, 0x7fffffff, &R->o.pid, err);
}
static int o_format(void *ctx, const char *const *v, struct gs_err *err)
{
    static const struct { const char *name; enum gs_report_format f; } fmts[] = {
        { "html", GS_REPORT_HTML }, { "term", GS_REPORT_TERM }, { "csv", GS_REPORT_CSV },
        { "json", GS_REPORT_JSON }, { "ndjson", GS_REPORT_JSON },
    };
    for (size_t i = 0; i < sizeof(fmts) / sizeof(fmts[0]); i++)
        if (!strcmp(v[0], fmts[i].name)) {
            R->o.format = fmts[i].f;
            return 0;
        }
    return gs_err_set(err, GS_E_USAGE, "--format wants html, term, csv or json");
}
#undef R

#define S(m) GS_OPT_STORE_STR(struct rargs, m)
static const struct gs_opt report_opts[] = {
    { "--db", 0, "FILE", NULL, "history database (default: where 'gpuscope record' writes)", .comp = GS_COMP_FILE,
      S(o.db),
      .man = "The history database (default: where\n"
        ".Xr gpuscope-record 1\n"
        "writes)." },
    { "--since", 0, "DURATION", o_since, "the last DURATION (default 24h): 90s, 15m, 2h, 3d",
      .man = "The last\n"
        ".Ar DURATION\n"
        "(default 24h): 90s, 15m, 2h, 3d." },
    { "--from", 0, "TIME", NULL, "from TIME: RFC 3339 or 'YYYY-MM-DD HH:MM[:SS]' (local), '-2h', 'now', @EPOCH",
      S(from),
      .man = "RFC 3339, or\n"
        ".Ql YYYY-MM-DD HH:MM Ns Op :SS\n"
        "in local time,\n"
        ".Ql -2h ,\n"
        ".Ql now ,\n"
        "or\n"
        ".Li @ Ns Ar EPOCH ." },
    { "--to", 0, "TIME", NULL, "to TIME (default now), as --from", S(to) },
    { "--id", 'i', "INDEX", o_id, "one GPU", .comp = GS_COMP_GPU,
      .man = "One GPU." },
    { "--pid", 0, "PID", o_pid, "one process (per-process chart)",
      .man = "One process (a per-process chart)." },
    { "--format", 'f', "FMT", o_format, "html (default), term, csv, json (NDJSON)", .comp = GS_COMP_CHOICES,
      .choices = "html term csv json",
      .man = ".Cm html\n"
        "(the default),\n"
        ".Cm term ,\n"
        ".Cm csv\n"
        "or\n"
        ".Cm json\n"
        "(NDJSON)." },
    { "--output", 'o', "FILE", NULL, "write there instead of stdout", .comp = GS_COMP_FILE, S(o.output),
      .man = "Write there instead of standard output." },
    { "--job", 0, "ID", NULL, "an HPC job's GPU summary from this machine's history (gpuscope slurm\n"
      "prolog/epilog; -f json: as JSON); with --prometheus: the GPUs of Slurm job ID\n"
      "in the fleet (the hpc_job label), not the record database's accounting", S(job),
      .man = "An HPC job's GPU summary, as\n"
        ".Xr gpuscope-slurm 1\n"
        "wrote it at its end (made now while it runs): energy, utilization, peak memory,\n"
        "throttling, Xids and idle GPU-hours per GPU;\n"
        ".Fl f Cm json\n"
        "prints it as JSON.\n"
        "With\n"
        ".Fl -prometheus ,\n"
        ".Fl -job\n"
        "means the fleet's job instead (below), not this machine's accounting.\n"
        ".Pp\n"
        "With\n"
        ".Fl -prometheus :\n"
        "the GPUs of the fleet's Slurm job\n"
        ".Ar ID\n"
        "on every node (the\n"
        ".Li hpc_job\n"
        "label), not the record database's accounting." },
    { "--user", 0, "NAME", NULL, "jobs of NAME in the range (--since, default 24h): GPU-hours, idle GPU-hours,\n"
      "energy per job and in all (--user all: every user; -f json: NDJSON)", S(user),
      .man = "The jobs of\n"
        ".Ar NAME\n"
        ".Po Cm all :\n"
        "every user\n"
        ".Pc\n"
        "in the range: GPU-hours, idle GPU-hours and energy per job and in all." },
    { "--prometheus", 0, "URL", NULL, "the Prometheus that scrapes gpuscope serve or dcgm-exporter", S(fo.url),
      .section = "The fleet over the range, from Prometheus (docs/FLEET.md): per-node table, node x time\n"
                 "heatmaps, idle GPU-hours and energy per node and per namespace/job (html or term):",
      .man = "The fleet over the range instead of this machine's history:\n"
        "per-node table, node x time heatmaps, idle GPU-hours and energy\n"
        "per node and per namespace or Slurm job, from range queries to\n"
        "the Prometheus at\n"
        ".Ar URL\n"
        ".Pq Cm html No or Cm term ." },
    { "--match", 0, "SELECTOR", NULL, "only these series, e.g. '{cluster=\"a\"}'", S(fo.match),
      .man = "With\n"
        ".Fl -prometheus :\n"
        "only series matching these label matchers, such as\n"
        ".Ql {cluster=\"a\"} ." },
    { "--prometheus-config", 0, "FILE", NULL, "basic auth, bearer token, TLS (Prometheus' http_config YAML)",
      .comp = GS_COMP_FILE, S(fo.config),
      .man = "Credentials and TLS for\n"
        ".Fl -prometheus\n"
        ".Pq Prometheus' Cm http_config No in YAML ." },
    { "--node", 0, "HOST", NULL, "one node: its Hostname label (or instance, where the exporter sets no\n"
      "Hostname): per-GPU table, GPU x time heatmaps", S(fo.node),
      .section = "One node, job (--job) or pod of the fleet instead (per-GPU table, GPU x time heatmaps; may be\n"
                 "combined):",
      .man = "With\n"
        ".Fl -prometheus :\n"
        "the report of one node: a row per GPU\n"
        ".Pq Ar node : Ns Ar gpu ,\n"
        "GPU x time heatmaps, and the jobs and namespaces that ran on it.\n"
        ".Ar HOST\n"
        "is the\n"
        ".Li Hostname\n"
        "label, or\n"
        ".Li instance\n"
        "where the exporter sets none." },
    { "--pod", 0, "NAME", NULL, "the GPUs of a Kubernetes pod (the pod label)", S(fo.pod),
      .man = "With\n"
        ".Fl -prometheus :\n"
        "the GPUs of a Kubernetes pod, or of a namespace (the\n"
        ".Li pod\n"
        "and\n"
        ".Li namespace\n"
        "labels).\n"
        ".Pp\n"
        "The selections combine with each other and with\n"
        ".Fl -match ;\n"
        "each value is an escaped PromQL string, and one with a line break or\n"
        "over 1 KiB is a usage error.\n"
        "A selection that matches no GPU series over the range is an error naming it." },
    { "--namespace", 0, "NS", NULL, "the GPUs of a Kubernetes namespace (the namespace label)", S(fo.ns) },
};
#undef S

const struct gs_cli report_cli = {
    .name = "report",
    .usage = "gpuscope report [--since DURATION | --from TIME --to TIME] [options]",
    .about = "What the history says: an HTML report (one self-contained file), terminal charts, CSV or NDJSON.",
    .opts = report_opts,
    .nopts = GS_NOPTS(report_opts),
};

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
    struct rargs a = { .o = { .gpu_index = -1, .format = GS_REPORT_HTML, .width = 80 }, .since = 24 * 3600 * 1000LL };
    struct gs_err err = { 0 };
    int64_t now = gs_now_ms();
    const char *cols = getenv("COLUMNS");
    (void)ctx;
    if (cols && strtol(cols, NULL, 10) > 40)
        a.o.width = (unsigned)strtol(cols, NULL, 10);
    int rc = gs_cli_parse(&report_cli, argc, argv, &a, &err);
    if (rc)
        return rc > 0 ? GS_EXIT_OK : gs_cli_fail(&report_cli, &err);
    struct gs_report_opts o = a.o;
    struct gs_frep_opts fo = a.fo;
    const char *job = a.job, *user = a.user, *from = a.from, *to = a.to;
    int64_t since = a.since;
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
