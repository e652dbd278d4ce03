/* SPDX-License-Identifier: MIT */
/*
 * query.c - `gpuscope query`: its option table (cmd/opts.h: parsing, --help,
 * the man page and the completions from one place), then gs_out_run() in
 * src/format/. The options follow nvidia-smi's (--query-gpu,
 * --format=csv,noheader,nounits, -l, -lms, -i 0,1, in any order) so scripts
 * written for it keep working; its two spellings a getopt-style parser reads
 * otherwise (-lms 500, -i=0) go through cmd/smi_argv.c first. docs/QUERY.md.
 */
#include "core/prom_api.h"
#include "cmd/cmd.h"
#include "cmd/opts.h"
#include "cmd/smi_argv.h"
#include "core/module.h"
#include "format/format.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Everything the options set; checked together in finish(). */
struct qargs {
    struct gs_out_opts out;
    struct gs_fieldlist fields;
    const char *query_opt; /* which --query-* was given, NULL if none */
    bool format_set;
    const char *color; /* auto, always, never */
    struct gs_prom_opts prom; /* --prometheus URL, --match, --prometheus-config: the fleet */
};

static int set_fields(struct qargs *q, enum gs_query_kind kind, const char *opt, const char *val,
                      struct gs_err *err)
{
    if (q->query_opt)
        return gs_err_set(err, GS_E_USAGE, "%s and %s cannot be combined", q->query_opt, opt);
    q->query_opt = opt;
    return gs_fieldlist_parse(&q->fields, kind, val, err);
}

static int opt_query_gpu(void *ctx, const char *const *v, struct gs_err *err)
{
    struct qargs *q = ctx;
    const char *val = v[0];
    return set_fields(q, GS_QUERY_GPU, "--query-gpu", val, err);
}

static int opt_query_apps(void *ctx, const char *const *v, struct gs_err *err)
{
    struct qargs *q = ctx;
    const char *val = v[0];
    return set_fields(q, GS_QUERY_COMPUTE_APPS, "--query-compute-apps", val, err);
}

/* csv[,noheader][,nounits] | json | table */
static int opt_format(void *ctx, const char *const *v, struct gs_err *err)
{
    struct qargs *q = ctx;
    const char *val = v[0];
    char buf[64];
    char *save = NULL;

    if (q->format_set)
        return gs_err_set(err, GS_E_USAGE, "--format given twice");
    snprintf(buf, sizeof(buf), "%s", val);
    q->format_set = true;
    q->out.csv_flags = 0;
    for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        if (!strcmp(t, "csv"))
            q->out.format = GS_OUT_CSV;
        else if (!strcmp(t, "json"))
            q->out.format = GS_OUT_JSON;
        else if (!strcmp(t, "table"))
            q->out.format = GS_OUT_TABLE;
        else if (!strcmp(t, "gpustat"))
            q->out.format = GS_OUT_GPUSTAT;
        else if (!strcmp(t, "noheader"))
            q->out.csv_flags |= GS_CSV_NOHEADER;
        else if (!strcmp(t, "nounits"))
            q->out.csv_flags |= GS_CSV_NOUNITS;
        else
            return gs_err_set(err, GS_E_USAGE,
                              "--format: unknown '%s' (csv[,noheader][,nounits], json, table, gpustat)", t);
    }
    if (q->out.csv_flags && q->out.format != GS_OUT_CSV)
        return gs_err_set(err, GS_E_USAGE, "--format: noheader and nounits go with csv");
    return 0;
}

static int opt_details(void *ctx, const char *const *v, struct gs_err *err)
{
    (void)v, (void)err;
    ((struct qargs *)ctx)->out.format = GS_OUT_DETAILS;
    return 0;
}

static int parse_interval(const char *opt, const char *val, double scale, uint64_t *ns, struct gs_err *err)
{
    char *end;
    double v = strtod(val, &end);

    if (end == val || *end || !isfinite(v) || v <= 0 || v * scale > 1e6)
        return gs_err_set(err, GS_E_USAGE, "%s: invalid interval '%s': a positive number, at most 1000000 s", opt,
                          val);
    *ns = (uint64_t)llround(v * scale * 1e9);
    if (*ns < 1000000)
        *ns = 1000000; /* 1 ms: below that it is a busy loop */
    return 0;
}

static int opt_loop(void *ctx, const char *const *v, struct gs_err *err)
{
    return parse_interval("--loop", v[0], 1.0, &((struct qargs *)ctx)->out.interval_ns, err);
}

static int opt_loop_ms(void *ctx, const char *const *v, struct gs_err *err)
{
    return parse_interval("--loop-ms", v[0], 1e-3, &((struct qargs *)ctx)->out.interval_ns, err);
}

static int opt_count(void *ctx, const char *const *v, struct gs_err *err)
{
    char *end;
    unsigned long long n = strtoull(v[0], &end, 10);

    if (end == v[0] || *end || v[0][0] == '-' || n == 0)
        return gs_err_set(err, GS_E_USAGE, "--count: '%s' is not a positive whole number", v[0]);
    ((struct qargs *)ctx)->out.count = n;
    return 0;
}

static int opt_color(void *ctx, const char *const *v, struct gs_err *err)
{
    if (strcmp(v[0], "auto") && strcmp(v[0], "always") && strcmp(v[0], "never"))
        return gs_err_set(err, GS_E_USAGE, "--color: use auto, always or never");
    ((struct qargs *)ctx)->color = v[0];
    return 0;
}

static void print_line(void *arg, const char *text)
{
    (void)arg;
    puts(text);
}

static int opt_help_gpu(void *ctx, const char *const *v, struct gs_err *err)
{
    (void)ctx, (void)v, (void)err;
    gs_fields_help(GS_QUERY_GPU, print_line, NULL);
    return GS_OPT_DONE;
}

static int opt_help_apps(void *ctx, const char *const *v, struct gs_err *err)
{
    (void)ctx, (void)v, (void)err;
    gs_fields_help(GS_QUERY_COMPUTE_APPS, print_line, NULL);
    return GS_OPT_DONE;
}

static const struct gs_opt query_opts[] = {
    { "--query-gpu", 0, "FIELDS", opt_query_gpu, "comma-separated nvidia-smi field names (CSV output)",
      .comp = GS_COMP_FIELDS, .choices = "--help-query-gpu", .flags = GS_OPT_LIST,
      .man = "Comma-separated\n"
             ".Xr nvidia-smi 1\n"
             "field names; one CSV row per GPU.\n"
             ".Fl -help-query-gpu\n"
             "lists them." },
    { "--query-compute-apps", 0, "FIELDS", opt_query_apps, "one CSV row per compute process",
      .comp = GS_COMP_FIELDS, .choices = "--help-query-compute-apps", .flags = GS_OPT_LIST,
      .man = "One CSV row per compute process." },
    { "--format", 0, "FMT", opt_format, "csv[,noheader][,nounits] | json | table (default) | gpustat",
      .comp = GS_COMP_CHOICES, .choices = "csv noheader nounits json table gpustat", .flags = GS_OPT_LIST,
      .man = ".Cm csv Ns Op Cm ,noheader Ns Op Cm ,nounits ,\n"
             ".Cm json\n"
             "or\n"
             ".Cm table\n"
             "(the default)." },
    { "--details", 'q', NULL, opt_details, "everything known per GPU, grouped (like nvidia-smi -q)",
      .man = "Everything known per GPU, grouped, like\n"
             ".Ql nvidia-smi -q ." },
    { "--loop", 'l', "SECONDS", opt_loop, "repeat every SECONDS (fractions allowed) until Ctrl-C",
      .man = "Repeat every\n"
             ".Ar SECONDS\n"
             "(fractions allowed) until interrupted; JSON becomes one object per line." },
    { "--loop-ms", 0, "MS", opt_loop_ms, "repeat every MS milliseconds (also nvidia-smi's -lms MS)",
      .man = "Repeat every\n"
             ".Ar MS\n"
             "milliseconds." },
    { "--count", 'c', "N", opt_count, "stop after N snapshots (alone: loops every 1 s)",
      .man = "Stop after\n"
             ".Ar N\n"
             "snapshots (alone: one every second)." },
    { "--id", 'i', "IDS", NULL, "GPUs by index, UUID or PCI bus id, comma-separated", .comp = GS_COMP_GPU,
      .flags = GS_OPT_LIST, GS_OPT_STORE_STR(struct qargs, out.only_ids),
      .man = "Only these GPUs: indexes, UUIDs or PCI bus ids, comma-separated." },
    { "--color", 0, "WHEN", opt_color, "auto (default: on a terminal, unless NO_COLOR), always, never",
      .comp = GS_COMP_CHOICES, .choices = "auto always never",
      .man = ".Cm auto\n"
             "(on a terminal, unless\n"
             ".Ev NO_COLOR\n"
             "is set),\n"
             ".Cm always\n"
             "or\n"
             ".Cm never ." },
    { "--debug", 0, NULL, NULL, "print the NVML library and symbols bound, to stderr",
      GS_OPT_STORE_TRUE(struct qargs, out.debug),
      .man = "Print the NVML library loaded and the symbols bound, to standard error." },
    { "--verbose", 'v', NULL, NULL, "explain on stderr (fields gpuscope does not read, ...)",
      GS_OPT_STORE_TRUE(struct qargs, out.verbose),
      .man = "Explain on standard error (fields gpuscope does not read, ...)." },
    { "--prometheus", 0, "URL", NULL, "the fleet: every GPU a Prometheus holds (docs/FLEET.md)",
      GS_OPT_STORE_STR(struct qargs, prom.url),
      .man = "The fleet: every GPU that the Prometheus (or VictoriaMetrics, Thanos, Mimir) at\n"
             ".Ar URL\n"
             "holds series of, from\n"
             ".Xr gpuscope-serve 1\n"
             "or dcgm-exporter, each with its node as\n"
             ".Cm host .\n"
             "See docs/FLEET.md." },
    { "--match", 0, "SELECTOR", NULL, "with --prometheus: only series matching '{label=\"value\",...}'",
      GS_OPT_STORE_STR(struct qargs, prom.match),
      .man = "With\n"
             ".Fl -prometheus :\n"
             "only series matching these label matchers, such as\n"
             ".Ql {cluster=\"a\"} ." },
    { "--prometheus-config", 0, "FILE", NULL, "credentials and TLS (Prometheus' http_config YAML)",
      .comp = GS_COMP_FILE, GS_OPT_STORE_STR(struct qargs, prom.config_path),
      .man = "Credentials and TLS for\n"
             ".Fl -prometheus :\n"
             "Prometheus'\n"
             ".Cm http_config\n"
             "in YAML (basic_auth, authorization, bearer_token_file, tls_config)." },
    { "--help-query-gpu", 0, NULL, opt_help_gpu, "list the --query-gpu fields",
      .man = "List the\n"
             ".Fl -query-gpu\n"
             "fields, with their aliases and units." },
    { "--help-query-compute-apps", 0, NULL, opt_help_apps, "list the --query-compute-apps fields",
      .man = "List the\n"
             ".Fl -query-compute-apps\n"
             "fields." },
};

const struct gs_cli query_cli = {
    .name = "query",
    .usage = "gpuscope query [options]",
    .about = "Snapshot or stream GPU and process readings. Without options: a compact table.",
    .opts = query_opts,
    .nopts = GS_NOPTS(query_opts),
    .footer = "Exit codes: 0 ok, 2 usage, 3 no NVML/driver, 4 no GPU, 5 partial (a GPU lost or failing).\n"
              "See docs/QUERY.md and docs/JSON.md.",
};

/* nvidia-smi's spellings (-lms, -i=0: cmd/smi_argv.h), then the table. */
static int parse_args(int argc, char **argv, struct qargs *q, struct gs_err *err)
{
    char **v;
    int n = gs_smi_argv(&query_cli, argc, argv, &v);
    if (n < 0)
        return gs_err_set(err, GS_E_NOMEM, "query: out of memory");
    int rc = gs_cli_parse(&query_cli, n, v, q, err);
    free(v);
    return rc;
}

static bool want_color(const char *when)
{
    const char *no = getenv("NO_COLOR");
    const char *term = getenv("TERM");

    if (!strcmp(when, "always") || !strcmp(when, "never"))
        return when[0] == 'a';
    return isatty(STDOUT_FILENO) && !(no && no[0]) && !(term && !strcmp(term, "dumb"));
}

/* Options that only make sense together. */
static int finish(struct qargs *q, struct gs_err *err)
{
    if (q->query_opt && q->format_set && q->out.format != GS_OUT_CSV)
        return gs_err_set(err, GS_E_USAGE, "%s prints CSV: use --format=csv[,noheader][,nounits]",
                          q->query_opt);
    if (q->query_opt) {
        q->out.format = GS_OUT_CSV;
        q->out.fields = &q->fields;
    } else if (q->out.format == GS_OUT_CSV) {
        return gs_err_set(err, GS_E_USAGE,
                          "--format=csv needs --query-gpu=FIELDS or --query-compute-apps=FIELDS");
    }
    if (q->out.format == GS_OUT_DETAILS && q->format_set)
        return gs_err_set(err, GS_E_USAGE, "--details is its own format: drop --format");
    if ((q->prom.match || q->prom.config_path) && !q->prom.url)
        return gs_err_set(err, GS_E_USAGE, "%s goes with --prometheus URL",
                          q->prom.match ? "--match" : "--prometheus-config");
    if (q->out.count && !q->out.interval_ns)
        q->out.interval_ns = 1000000000ull;
    q->out.color = want_color(q->color);
    q->out.redraw = (q->out.format == GS_OUT_TABLE || q->out.format == GS_OUT_GPUSTAT) && q->out.interval_ns &&
                    isatty(STDOUT_FILENO);
    if (q->out.format == GS_OUT_GPUSTAT) { /* gpustat's default line; its flags: `gpuscope gpustat` */
        static struct gs_gpustat_opts g;
        g = (struct gs_gpustat_opts){.color = q->out.color, .color_auto = !strcmp(q->color, "auto"),
                                     .codec = "", .power = "", .gpuname_width = -1,
                                     .eol = q->out.redraw ? "\033[K\n" : "\n"};
        q->out.gpustat = &g;
    }
    return 0;
}

static void note_unread(void *arg, const char *name)
{
    (void)arg;
    fprintf(stderr, "gpuscope: note: field '%s' is not read by gpuscope; it prints [N/A]\n", name);
}

int cmd_query(int argc, char **argv, const struct gs_cmd_ctx *ctx)
{
    static struct qargs q; /* large (the field list): not on the stack */
    struct gs_err err = {0};

    memset(&q, 0, sizeof(q));
    q.color = "auto";
    q.out.nvml_lib = ctx->nvml_lib;
    int rc = parse_args(argc, argv, &q, &err);
    if (rc == GS_OPT_DONE) { /* --help, --help-query-*: printed */
        gs_fieldlist_free(&q.fields);
        return GS_EXIT_OK;
    }
    if (rc < 0 || finish(&q, &err) < 0) {
        gs_err_print(&err);
        gs_fieldlist_free(&q.fields);
        return err.code == GS_E_NOMEM ? GS_EXIT_FAILURE : GS_EXIT_USAGE;
    }
    if (q.prom.url) { /* the fleet: one more backend, from the fleet module */
        q.out.backend = gs_module_symbol("fleet", "gs_prom_backend", &err);
        q.out.backend_arg = &q.prom;
        if (!q.out.backend) {
            gs_err_print(&err);
            gs_fieldlist_free(&q.fields);
            return GS_EXIT_FAILURE;
        }
    }
    if (q.query_opt && q.out.verbose) /* nvidia-smi prints nothing on stderr: only when asked */
        gs_fieldlist_unread(&q.fields, note_unread, NULL);
    int code = gs_out_run(&q.out);
    gs_fieldlist_free(&q.fields);
    return code;
}
