/* SPDX-License-Identifier: MIT */
/*
 * top.c - `gpuscope top`: option parsing, then the live view (src/ui/top.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/opts.h"
#include "ui/conf.h"
#include "ui/fleet.h"
#include "ui/fmt.h"
#include "ui/top.h"

static int parse_interval(const char *s, uint32_t *ms)
{
    char *end;
    double v = strtod(s, &end);
    if (end == s || *end || v * 1000 < GS_INTERVAL_MIN_MS || v * 1000 > GS_INTERVAL_MAX_MS)
        return -1;
    *ms = (uint32_t)(v * 1000 + 0.5);
    return 0;
}

static int parse_count(const char *s, long *n)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (end == s || *end || v < 1 || v > 1000000)
        return -1;
    *n = v;
    return 0;
}

static int parse_layout(const char *s)
{
    for (int i = 0; i < GS_LAYOUT_PREF_COUNT; i++)
        if (!strcmp(s, gs_layout_names[i]))
            return i;
    return -1;
}

#define O ((struct gs_top_opts *)ctx)
static int o_interval(void *ctx, const char *const *v, struct gs_err *err)
{
    if (parse_interval(v[0], &O->interval_ms) < 0)
        return gs_err_set(err, GS_E_USAGE, "--interval wants seconds from 0.1 to 10, not '%s'", v[0]);
    O->interval_set = true;
    return 0;
}
static int o_batch(void *ctx, const char *const *v, struct gs_err *err)
{
    if (parse_count(v[0], &O->batch) < 0)
        return gs_err_set(err, GS_E_USAGE, "--batch wants a count of refreshes from 1, not '%s'", v[0]);
    return 0;
}
static int o_layout(void *ctx, const char *const *v, struct gs_err *err)
{
    if ((O->layout = parse_layout(v[0])) < 0)
        return gs_err_set(err, GS_E_USAGE, "--layout wants auto, full, compact or line");
    return 0;
}
#undef O

#define S(m) GS_OPT_STORE_STR(struct gs_top_opts, m)
#define T(m) GS_OPT_STORE_TRUE(struct gs_top_opts, m)
static const struct gs_opt top_opts[] = {
    { "--interval", 'd', "SECONDS", o_interval, "refresh period, 0.1 .. 10 (default 1, or the saved setting)",
      .man = "Refresh period, 0.1 to 10 (default 1, or the saved setting)." },
    { "--id", 'i', "IDS", NULL, "only these GPUs: indexes, UUIDs or PCI bus ids, comma-separated",
      .comp = GS_COMP_GPU, .flags = GS_OPT_LIST, S(only_ids),
      .man = "Only these GPUs: indexes, UUIDs or PCI bus ids, comma-separated." },
    { "--layout", 0, "MODE", o_layout, "auto, full, compact or line (one line per GPU)", .comp = GS_COMP_CHOICES,
      .choices = "auto full compact line",
      .man = ".Cm auto ,\n"
        ".Cm full ,\n"
        ".Cm compact\n"
        "or\n"
        ".Cm line\n"
        "(one line per GPU)." },
    { "--ascii", 0, NULL, NULL, "ASCII characters only (no braille/block charts)", T(ascii),
      .man = "ASCII characters only: no braille or block charts." },
    { "--mono", 'C', NULL, NULL, "no colours (NO_COLOR=1 does the same)", T(mono),
      .man = "No colours\n"
        ".Po\n"
        ".Ev NO_COLOR\n"
        "does the same\n"
        ".Pc ." },
    { "--readonly", 0, NULL, NULL, "never send signals", T(readonly),
      .man = "Never send signals to processes." },
    { "--no-save", 0, NULL, NULL, "do not write settings to $XDG_CONFIG_HOME/gpuscope/top.conf", T(no_save),
      .man = "Do not write the settings file." },
    { "--prometheus", 0, "URL", NULL, "the Prometheus (or VictoriaMetrics, Thanos, Mimir) that scrapes\n"
      "gpuscope serve or dcgm-exporter; refreshes at its scrape interval", S(prometheus),
      .section = "The fleet, from Prometheus (docs/FLEET.md): one row per node, Enter for its GPUs:",
      .man = "The fleet instead of this machine: one row per node, from the Prometheus (or\n"
        "VictoriaMetrics, Thanos, Mimir) at\n"
        ".Ar URL\n"
        "that scrapes\n"
        ".Xr gpuscope-serve 1\n"
        "or dcgm-exporter; Enter shows a node's GPUs, then a GPU's processes.\n"
        "Refreshes at the server's scrape interval\n"
        ".Pq Fl d No overrides it ." },
    { "--match", 0, "SELECTOR", NULL, "only these series, e.g. '{cluster=\"a\"}'", S(match),
      .man = "With\n"
        ".Fl -prometheus :\n"
        "only series matching these label matchers, such as\n"
        ".Ql {cluster=\"a\"} ." },
    { "--prometheus-config", 0, "FILE", NULL, "basic auth, bearer token, TLS (Prometheus' http_config YAML)",
      .comp = GS_COMP_FILE, S(prom_config),
      .man = "Credentials and TLS for\n"
        ".Fl -prometheus :\n"
        "Prometheus'\n"
        ".Cm http_config\n"
        "in YAML." },
    { "--node", 0, "HOST", NULL, "start on that node's GPUs", S(node),
      .man = "With\n"
        ".Fl -prometheus :\n"
        "start on that node's GPUs." },
    { "--batch", 0, "N", o_batch, "N refreshes as text on stdout, no terminal needed",
      .man = "With\n"
        ".Fl -prometheus :\n"
        "print\n"
        ".Ar N\n"
        "refreshes as text on standard output, without a terminal." },
};
#undef S
#undef T

const struct gs_cli top_cli = {
    .name = "top",
    .usage = "gpuscope top [options]",
    .about = "The live view: GPUs, history charts and GPU processes (keys: press ? inside).",
    .opts = top_opts,
    .nopts = GS_NOPTS(top_opts),
};

int cmd_top(int argc, char **argv, const struct gs_cmd_ctx *ctx)
{
    struct gs_top_opts o = { .layout = -1, .demo = ctx->demo };
    struct gs_err err = { 0 };

    int rc = gs_cli_parse(&top_cli, argc, argv, &o, &err);
    if (rc)
        return rc > 0 ? GS_EXIT_OK : gs_cli_fail(&top_cli, &err);
    if (!o.prometheus && (o.prom_config || o.match || o.node || o.batch)) {
        fprintf(stderr, "gpuscope top: --prometheus-config, --match, --node and --batch go with --prometheus URL\n");
        return GS_EXIT_USAGE;
    }
    if ((o.prometheus ? gs_fleet_top_run(&o, &err) : gs_top_run(&o, &err)) < 0) {
        gs_err_print(&err);
        return gs_exit_from_errc(err.code);
    }
    return GS_EXIT_OK;
}
