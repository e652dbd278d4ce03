/* SPDX-License-Identifier: MIT */
/*
 * query.c - `gpuscope query`: option parsing from one declarative table (help
 * text and parsing cannot drift apart), then gs_out_run() in src/format/. The
 * options follow nvidia-smi's (--query-gpu, --format=csv,noheader,nounits,
 * -l, -lms, -i) so scripts written for it keep working. docs/QUERY.md.
 */
#include "core/prom_api.h"
#include "cmd/cmd.h"
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
    bool help_done;    /* --help or --help-query-*: print, exit 0 */
    struct gs_prom_opts prom; /* --prometheus URL, --match, --prometheus-config: the fleet */
};

struct opt {
    const char *lng;  /* "--loop" */
    const char *shrt; /* "-l", "-lms" or NULL */
    const char *arg;  /* metavariable, NULL for a flag */
    int (*set)(struct qargs *q, const char *val, struct gs_err *err);
    const char *help;
};

static int set_fields(struct qargs *q, enum gs_query_kind kind, const char *opt, const char *val,
                      struct gs_err *err)
{
    if (q->query_opt)
        return gs_err_set(err, GS_E_USAGE, "%s and %s cannot be combined", q->query_opt, opt);
    q->query_opt = opt;
    return gs_fieldlist_parse(&q->fields, kind, val, err);
}

static int opt_query_gpu(struct qargs *q, const char *val, struct gs_err *err)
{
    return set_fields(q, GS_QUERY_GPU, "--query-gpu", val, err);
}

static int opt_query_apps(struct qargs *q, const char *val, struct gs_err *err)
{
    return set_fields(q, GS_QUERY_COMPUTE_APPS, "--query-compute-apps", val, err);
}

/* csv[,noheader][,nounits] | json | table */
static int opt_format(struct qargs *q, const char *val, struct gs_err *err)
{
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

static int opt_details(struct qargs *q, const char *val, struct gs_err *err)
{
    (void)val;
    (void)err;
    q->out.format = GS_OUT_DETAILS;
    return 0;
}

static int parse_interval(const char *val, double scale, uint64_t *ns, struct gs_err *err)
{
    char *end;
    double v = strtod(val, &end);

    if (end == val || *end || !isfinite(v) || v <= 0 || v * scale > 1e6)
        return gs_err_set(err, GS_E_USAGE, "invalid interval '%s': a positive number, at most 1000000 s",
                          val);
    *ns = (uint64_t)llround(v * scale * 1e9);
    if (*ns < 1000000)
        *ns = 1000000; /* 1 ms: below that it is a busy loop */
    return 0;
}

static int opt_loop(struct qargs *q, const char *val, struct gs_err *err)
{
    return parse_interval(val, 1.0, &q->out.interval_ns, err);
}

static int opt_loop_ms(struct qargs *q, const char *val, struct gs_err *err)
{
    return parse_interval(val, 1e-3, &q->out.interval_ns, err);
}

static int opt_count(struct qargs *q, const char *val, struct gs_err *err)
{
    char *end;
    unsigned long long n = strtoull(val, &end, 10);

    if (end == val || *end || val[0] == '-' || n == 0)
        return gs_err_set(err, GS_E_USAGE, "--count: '%s' is not a positive whole number", val);
    q->out.count = n;
    return 0;
}

static int opt_id(struct qargs *q, const char *val, struct gs_err *err)
{
    (void)err;
    q->out.only_ids = val;
    return 0;
}

static int opt_color(struct qargs *q, const char *val, struct gs_err *err)
{
    if (strcmp(val, "auto") && strcmp(val, "always") && strcmp(val, "never"))
        return gs_err_set(err, GS_E_USAGE, "--color: use auto, always or never");
    q->color = val;
    return 0;
}

static int opt_debug(struct qargs *q, const char *val, struct gs_err *err)
{
    (void)val;
    (void)err;
    q->out.debug = true;
    return 0;
}

static int opt_verbose(struct qargs *q, const char *val, struct gs_err *err)
{
    (void)val;
    (void)err;
    q->out.verbose = true;
    return 0;
}

static int opt_prometheus(struct qargs *q, const char *val, struct gs_err *err)
{
    (void)err;
    q->prom.url = val;
    return 0;
}

static int opt_match(struct qargs *q, const char *val, struct gs_err *err)
{
    (void)err;
    q->prom.match = val;
    return 0;
}

static int opt_prom_config(struct qargs *q, const char *val, struct gs_err *err)
{
    (void)err;
    q->prom.config_path = val;
    return 0;
}

static int opt_help(struct qargs *q, const char *val, struct gs_err *err);
static int opt_help_gpu(struct qargs *q, const char *val, struct gs_err *err);
static int opt_help_apps(struct qargs *q, const char *val, struct gs_err *err);

static const struct opt options[] = {
    {"--query-gpu", NULL, "FIELDS", opt_query_gpu, "comma-separated nvidia-smi field names (CSV output)"},
    {"--query-compute-apps", NULL, "FIELDS", opt_query_apps, "one CSV row per compute process"},
    {"--format", NULL, "FMT", opt_format, "csv[,noheader][,nounits] | json | table (default) | gpustat"},
    {"--details", "-q", NULL, opt_details, "everything known per GPU, grouped (like nvidia-smi -q)"},
    {"--loop", "-l", "SECONDS", opt_loop, "repeat every SECONDS (fractions allowed) until Ctrl-C"},
    {"--loop-ms", "-lms", "MS", opt_loop_ms, "repeat every MS milliseconds"},
    {"--count", "-c", "N", opt_count, "stop after N snapshots (alone: loops every 1 s)"},
    {"--id", "-i", "IDS", opt_id, "GPUs by index, UUID or PCI bus id, comma-separated"},
    {"--color", NULL, "WHEN", opt_color, "auto (default: on a terminal, unless NO_COLOR), always, never"},
    {"--debug", NULL, NULL, opt_debug, "print the NVML library and symbols bound, to stderr"},
    {"--verbose", "-v", NULL, opt_verbose, "explain on stderr (fields gpuscope does not read, ...)"},
    {"--prometheus", NULL, "URL", opt_prometheus, "the fleet: every GPU a Prometheus holds (docs/FLEET.md)"},
    {"--match", NULL, "SELECTOR", opt_match, "with --prometheus: only series matching '{label=\"value\",...}'"},
    {"--prometheus-config", NULL, "FILE", opt_prom_config, "credentials and TLS (Prometheus' http_config YAML)"},
    {"--help-query-gpu", NULL, NULL, opt_help_gpu, "list the --query-gpu fields"},
    {"--help-query-compute-apps", NULL, NULL, opt_help_apps, "list the --query-compute-apps fields"},
    {"--help", "-h", NULL, opt_help, "this help"},
};

#define NOPTS (sizeof(options) / sizeof(options[0]))

static int opt_help(struct qargs *q, const char *val, struct gs_err *err)
{
    (void)val;
    (void)err;
    printf("usage: gpuscope query [options]\n\n"
           "Snapshot or stream GPU and process readings. Without options: a compact table.\n\n");
    for (size_t i = 0; i < NOPTS; i++) {
        char left[64];
        snprintf(left, sizeof(left), "%s%s%s%s%s", options[i].shrt ? options[i].shrt : "",
                 options[i].shrt ? ", " : "", options[i].lng, options[i].arg ? "=" : "",
                 options[i].arg ? options[i].arg : "");
        printf("  %-30s %s\n", left, options[i].help);
    }
    printf("\nExit codes: 0 ok, 2 usage, 3 no NVML/driver, 4 no GPU, 5 partial (a GPU lost or failing).\n"
           "See docs/QUERY.md and docs/JSON.md.\n");
    q->help_done = true;
    return 0;
}

static void print_line(void *arg, const char *text)
{
    (void)arg;
    puts(text);
}

static int opt_help_gpu(struct qargs *q, const char *val, struct gs_err *err)
{
    (void)val;
    (void)err;
    gs_fields_help(GS_QUERY_GPU, print_line, NULL);
    q->help_done = true;
    return 0;
}

static int opt_help_apps(struct qargs *q, const char *val, struct gs_err *err)
{
    (void)val;
    (void)err;
    gs_fields_help(GS_QUERY_COMPUTE_APPS, print_line, NULL);
    q->help_done = true;
    return 0;
}

/* Find the option for argv token tok; *val gets an inline "=value" or NULL. */
static const struct opt *find_opt(const char *tok, const char **val)
{
    const char *eq = strchr(tok, '=');
    size_t len = eq ? (size_t)(eq - tok) : strlen(tok);

    *val = eq ? eq + 1 : NULL;
    for (size_t i = 0; i < NOPTS; i++) {
        const char *names[2] = {options[i].lng, options[i].shrt};
        for (int k = 0; k < 2; k++)
            if (names[k] && strlen(names[k]) == len && !strncmp(names[k], tok, len))
                return &options[i];
    }
    return NULL;
}

static int parse_args(int argc, char **argv, struct qargs *q, struct gs_err *err)
{
    for (int i = 1; i < argc && !q->help_done; i++) {
        const char *val;
        const struct opt *o = find_opt(argv[i], &val);
        if (!o)
            return gs_err_set(err, GS_E_USAGE, "query: unknown option '%s' (see 'gpuscope query --help')",
                              argv[i]);
        if (o->arg && !val) {
            if (i + 1 >= argc)
                return gs_err_set(err, GS_E_USAGE, "%s needs a value (%s)", o->lng, o->arg);
            val = argv[++i];
        } else if (!o->arg && val) {
            return gs_err_set(err, GS_E_USAGE, "%s takes no value", o->lng);
        }
        if (o->set(q, val, err) < 0)
            return -err->code;
    }
    return 0;
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
    if (parse_args(argc, argv, &q, &err) < 0 || (!q.help_done && finish(&q, &err) < 0)) {
        gs_err_print(&err);
        gs_fieldlist_free(&q.fields);
        return err.code == GS_E_NOMEM ? GS_EXIT_FAILURE : GS_EXIT_USAGE;
    }
    if (q.help_done) {
        gs_fieldlist_free(&q.fields);
        return GS_EXIT_OK;
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
