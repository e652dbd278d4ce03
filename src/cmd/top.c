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
            "  -h, --help               this text\n");
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

static int parse_layout(const char *s)
{
    for (int i = 0; i < GS_LAYOUT_PREF_COUNT; i++)
        if (!strcmp(s, gs_layout_names[i]))
            return i;
    return -1;
}

static int top_parse(int argc, char **argv, struct gs_top_opts *o)
{
    enum { OPT_LAYOUT = 256, OPT_ASCII, OPT_READONLY, OPT_NOSAVE };
    static const struct option longopts[] = {
        { "interval", required_argument, NULL, 'd' }, { "id", required_argument, NULL, 'i' },
        { "layout", required_argument, NULL, OPT_LAYOUT }, { "ascii", no_argument, NULL, OPT_ASCII },
        { "mono", no_argument, NULL, 'C' }, { "readonly", no_argument, NULL, OPT_READONLY },
        { "no-save", no_argument, NULL, OPT_NOSAVE }, { "help", no_argument, NULL, 'h' },
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
            break;
        case 'i': o->only_ids = optarg; break;
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
    return 0;
}

int cmd_top(int argc, char **argv, const struct gs_cmd_ctx *ctx)
{
    struct gs_top_opts o = { .layout = -1, .demo = ctx->demo };
    struct gs_err err = { 0 };

    int rc = top_parse(argc, argv, &o);
    if (rc)
        return rc < 0 ? GS_EXIT_OK : rc;
    if (gs_top_run(&o, &err) < 0) {
        gs_err_print(&err);
        return gs_exit_from_errc(err.code);
    }
    return GS_EXIT_OK;
}
