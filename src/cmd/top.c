/* SPDX-License-Identifier: MIT */
/*
 * top.c - `gpuscope top`: option parsing, then the live view (src/ui/top.c).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "ui/conf.h"
#include "ui/fleet.h"
#include "ui/fmt.h"
#include "ui/top.h"

static void top_usage(FILE *out)
{
    fprintf(out,
            "usage: gpuscope top [options]\n\n"
            "The live view: GPUs, history charts and GPU processes (keys: press ? inside).\n\n"
            "  -d, --interval SECONDS   refresh period, 0.1 .. 10 (default 1, or the saved setting)\n"
            "  -i, --id IDS             only these GPUs: indexes, UUIDs or PCI bus ids, comma-separated\n"
            "      --layout MODE        auto, full, compact or line (one line per GPU)\n"
            "      --ascii              ASCII characters only (no braille/block charts)\n"
            "  -C, --mono               no colours (NO_COLOR=1 does the same)\n"
            "      --readonly           never send signals\n"
            "      --no-save            do not write settings to $XDG_CONFIG_HOME/gpuscope/top.conf\n"
            "  -h, --help               this text\n\n"
            "The fleet, from Prometheus (docs/FLEET.md): one row per node, Enter for its GPUs:\n"
            "      --prometheus URL     the Prometheus (or VictoriaMetrics, Thanos, Mimir) that scrapes\n"
            "                           gpuscope serve or dcgm-exporter; refreshes at its scrape interval\n"
            "      --match SELECTOR     only these series, e.g. '{cluster=\"a\"}'\n"
            "      --prometheus-config FILE  basic auth, bearer token, TLS (Prometheus' http_config YAML)\n"
            "      --node HOST          start on that node's GPUs\n"
            "      --batch N            N refreshes as text on stdout, no terminal needed\n");
}

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

static int top_parse(int argc, char **argv, struct gs_top_opts *o)
{
    enum { OPT_LAYOUT = 256, OPT_ASCII, OPT_READONLY, OPT_NOSAVE, OPT_PROM, OPT_PROMCFG, OPT_MATCH, OPT_NODE,
           OPT_BATCH };
    static const struct option longopts[] = {
        { "interval", required_argument, NULL, 'd' }, { "id", required_argument, NULL, 'i' },
        { "layout", required_argument, NULL, OPT_LAYOUT }, { "ascii", no_argument, NULL, OPT_ASCII },
        { "mono", no_argument, NULL, 'C' }, { "readonly", no_argument, NULL, OPT_READONLY },
        { "no-save", no_argument, NULL, OPT_NOSAVE }, { "help", no_argument, NULL, 'h' },
        { "prometheus", required_argument, NULL, OPT_PROM }, { "prometheus-config", required_argument, NULL, OPT_PROMCFG },
        { "match", required_argument, NULL, OPT_MATCH }, { "node", required_argument, NULL, OPT_NODE },
        { "batch", required_argument, NULL, OPT_BATCH },
        { NULL, 0, NULL, 0 },
    };
    int c;

    while ((c = getopt_long(argc, argv, "d:i:Ch", longopts, NULL)) != -1) {
        switch (c) {
        case 'd':
            if (parse_interval(optarg, &o->interval_ms) < 0) {
                fprintf(stderr, "gpuscope top: --interval wants seconds from 0.1 to 10, not '%s'\n", optarg);
                return GS_EXIT_USAGE;
            }
            o->interval_set = true;
            break;
        case 'i': o->only_ids = optarg; break;
        case OPT_PROM: o->prometheus = optarg; break;
        case OPT_PROMCFG: o->prom_config = optarg; break;
        case OPT_MATCH: o->match = optarg; break;
        case OPT_NODE: o->node = optarg; break;
        case OPT_BATCH:
            if (parse_count(optarg, &o->batch) < 0) {
                fprintf(stderr, "gpuscope top: --batch wants a count of refreshes from 1, not '%s'\n", optarg);
                return GS_EXIT_USAGE;
            }
            break;
        case OPT_LAYOUT:
            if ((o->layout = parse_layout(optarg)) < 0) {
                fprintf(stderr, "gpuscope top: --layout wants auto, full, compact or line\n");
                return GS_EXIT_USAGE;
            }
            break;
        case OPT_ASCII: o->ascii = true; break;
        case 'C': o->mono = true; break;
        case OPT_READONLY: o->readonly = true; break;
        case OPT_NOSAVE: o->no_save = true; break;
        case 'h': top_usage(stdout); return -1;
        default: top_usage(stderr); return GS_EXIT_USAGE;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "gpuscope top: unexpected argument '%s'\n", argv[optind]);
        return GS_EXIT_USAGE;
    }
    if (!o->prometheus && (o->prom_config || o->match || o->node || o->batch)) {
        fprintf(stderr, "gpuscope top: --prometheus-config, --match, --node and --batch go with --prometheus URL\n");
        return GS_EXIT_USAGE;
    }
    return 0;
}

int cmd_top(int argc, char **argv, const struct gs_cmd_ctx *ctx)
{
    struct gs_top_opts o = { .layout = -1, .demo = ctx->demo };
    struct gs_err err = { 0 };

    int rc = top_parse(argc, argv, &o);
    if (rc)
        return rc < 0 ? GS_EXIT_OK : rc;
    if ((o.prometheus ? gs_fleet_top_run(&o, &err) : gs_top_run(&o, &err)) < 0) {
        gs_err_print(&err);
        return gs_exit_from_errc(err.code);
    }
    return GS_EXIT_OK;
}
