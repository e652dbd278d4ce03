/* SPDX-License-Identifier: MIT */
/*
 * gpustat.c - `gpuscope gpustat`, also what the binary is when invoked as
 * `gpustat` (a symlink): gpustat 1.1's command line, then the query loop with
 * gpustat's output (src/format/gpustat.c). docs/GPUSTAT.md.
 *
 * Its options are a cmd/opts.h table (--help, the man page and completions
 * come from it), but this file parses them itself, because gpustat's argparse
 * quirks are the point of this face and cmd/opts.c reads them otherwise:
 * unique prefixes of long options (--show-po, with argparse's "ambiguous
 * option" error), -P/-e/-i taking the NEXT word as their optional value unless
 * it looks like an option (-P limit; cmd/opts.c only takes -Plimit), and
 * argparse's error texts and usage on stderr, which scripts and gpustat's own
 * tests match.
 */
#include "cmd/cmd.h"
#include "cmd/opts.h"
#include "format/format.h"
#include "version.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define GPUSTAT_VERSION "1.1.1" /* the gpustat release whose output and flags this face follows */

struct gargs {
    struct gs_out_opts out;
    struct gs_gpustat_opts g;
    bool force_color, no_color, show_all, json, help, version;
    double interval; /* -i: 0 = one shot */
};

#define A(ctx) ((struct gargs *)(ctx))

static int set_force_color(void *ctx, const char *const *v, struct gs_err *e)
{
    (void)v, (void)e;
    A(ctx)->force_color = true;
    return 0;
}

/* argparse's choices= check */
static const char *choose(const char *v, const char *const *choices, const char *opt, struct gs_err *err)
{
    char list[128] = "";
    size_t n = 0;

    for (size_t i = 0; choices[i]; i++) {
        if (!strcmp(v, choices[i]))
            return choices[i];
        n += (size_t)snprintf(list + n, n < sizeof(list) ? sizeof(list) - n : 0, "%s'%s'", i ? ", " : "",
                              choices[i]);
    }
    gs_err_set(err, GS_E_USAGE, "argument %s: invalid choice: '%s' (choose from %s)", opt, v, list);
    return NULL;
}

static int set_codec(void *ctx, const char *const *v, struct gs_err *err)
{
    static const char *const choices[] = {"", "enc", "dec", "enc,dec", NULL};
    A(ctx)->g.codec = v[0] ? choose(v[0], choices, "-e/--show-codec", err) : "enc,dec";
    return A(ctx)->g.codec ? 0 : -GS_E_USAGE;
}

static int set_power(void *ctx, const char *const *v, struct gs_err *err)
{
    static const char *const choices[] = {"", "draw", "limit", "draw,limit", "limit,draw", NULL};
    A(ctx)->g.power = v[0] ? choose(v[0], choices, "-P/--show-power", err) : "draw,limit";
    return A(ctx)->g.power ? 0 : -GS_E_USAGE;
}

static int set_interval(void *ctx, const char *const *v, struct gs_err *err)
{
    struct gargs *a = ctx;
    char *end;

    if (!v[0]) {
        a->interval = 1.0;
        return 0;
    }
    a->interval = strtod(v[0], &end);
    if (end == v[0] || *end || !isfinite(a->interval) || a->interval > 1e6)
        return gs_err_set(err, GS_E_USAGE, "argument -i/--interval/--watch: invalid float value: '%s'", v[0]);
    return 0;
}

static int set_width(void *ctx, const char *const *v, struct gs_err *err)
{
    char *end;
    long w = strtol(v[0], &end, 10);

    if (end == v[0] || *end)
        return gs_err_set(err, GS_E_USAGE, "argument --gpuname-width: invalid nonnegative_int value: '%s'", v[0]);
    if (w < 0 || w > 1000)
        return gs_err_set(err, GS_E_USAGE, "argument --gpuname-width: Only non-negative integers are allowed.");
    A(ctx)->g.gpuname_width = (int)w;
    return 0;
}

#define FLAG(type, member) GS_OPT_STORE_TRUE(type, member)

/* gpustat's own options, in its order. The spellings argparse gives one option
 * (--force-color, --color) are rows of their own, next to each other; a row
 * with GS_OPT_OPTIONAL takes the next word too unless it looks like an option
 * (argparse's nargs='?'), which parse() below does, not cmd/opts.c. */
static const struct gs_opt gopts[] = {
    {"--help", 'h', NULL, NULL, "show this help message and exit", FLAG(struct gargs, help)},
    {"--force-color", 0, NULL, set_force_color, "Force to output with colors",
      .man = "Colours even when the output is not a terminal." },
    {"--color", 0, NULL, set_force_color, "the same as --force-color"},
    {"--no-color", 0, NULL, NULL, "Suppress colored output", FLAG(struct gargs, no_color),
      .man = "No colours." },
    {"--id", 0, "ID", NULL, "Target a specific GPU (index; also UUID or PCI bus id).", .comp = GS_COMP_GPU,
     GS_OPT_STORE_STR(struct gargs, out.only_ids),
      .man = "One GPU: its index, UUID or PCI bus id." },
    {"--show-all", 'a', NULL, NULL, "Display all gpu properties above", FLAG(struct gargs, show_all),
      .man = "Every property below." },
    {"--show-cmd", 'c', NULL, NULL, "Display cmd name of running process", FLAG(struct gargs, g.show_cmd),
      .man = "The command name of each process." },
    {"--show-full-cmd", 'f', NULL, NULL, "Display full command and cpu stats of running process",
     FLAG(struct gargs, g.show_full_cmd),
      .man = "The full command line and CPU statistics of each process." },
    {"--show-user", 'u', NULL, NULL, "Display username of running process", FLAG(struct gargs, g.show_user),
      .man = "The user of each process." },
    {"--show-pid", 'p', NULL, NULL, "Display PID of running process", FLAG(struct gargs, g.show_pid),
      .man = "The PID of each process." },
    {"--show-fan-speed", 'F', NULL, NULL, "Display GPU fan speed", FLAG(struct gargs, g.show_fan),
      .man = "The fan speed." },
    {"--show-fan", 0, NULL, NULL, "the same as --show-fan-speed", FLAG(struct gargs, g.show_fan)},
    {"--show-codec", 'e', "WHICH", set_codec, "Show encoder/decoder utilization (enc, dec or enc,dec)",
     .comp = GS_COMP_CHOICES, .choices = "enc dec enc,dec", .flags = GS_OPT_OPTIONAL,
      .man = "Encoder and decoder utilization." },
    {"--show-power", 'P', "WHICH", set_power, "Show GPU power usage or draw (and/or limit)",
     .comp = GS_COMP_CHOICES, .choices = "draw limit draw,limit limit,draw", .flags = GS_OPT_OPTIONAL,
      .man = "Power draw and/or limit." },
    {"--json", 0, NULL, NULL, "Print all the information in JSON format", FLAG(struct gargs, json),
      .man = "Everything in gpustat's JSON." },
    {"--interval", 'i', "INTERVAL", set_interval, "Use watch mode if given; seconds to wait between updates",
     .flags = GS_OPT_OPTIONAL,
      .man = "Watch mode: print again every\n"
             ".Ar INTERVAL\n"
             "seconds (1 without a value)." },
    {"--watch", 0, "INTERVAL", set_interval, "the same as --interval", .flags = GS_OPT_OPTIONAL},
    {"--no-header", 0, NULL, NULL, "Suppress header message", FLAG(struct gargs, g.no_header),
      .man = "No header line." },
    {"--gpuname-width", 0, "GPUNAME_WIDTH", set_width, "The width at which GPU names will be displayed.",
      .man = "The width of the GPU name column." },
    {"--debug", 0, NULL, NULL, "Allow to print additional informations for debugging.", FLAG(struct gargs, out.debug),
      .man = "Print more for debugging." },
    {"--no-processes", 0, NULL, NULL, "Do not display running process information (memory, user, etc.)",
     FLAG(struct gargs, g.no_processes),
      .man = "No process information." },
    {"--version", 'v', NULL, NULL, "show program's version number and exit", FLAG(struct gargs, version),
      .man = "Print the version and exit." },
};

const struct gs_cli gpustat_cli = {
    .name = "gpustat",
    .usage = "gpustat [-h] [--force-color | --no-color] [--id ID] [-a] [-c] [-f] [-u] [-p] [-F]\n"
             "        [-e [{,enc,dec,enc,dec}]] [-P [{,draw,limit,draw,limit,limit,draw}]] [--json]\n"
             "        [-i [INTERVAL]] [--no-header] [--gpuname-width GPUNAME_WIDTH] [--debug]\n"
             "        [--no-processes] [-v]",
    .about = "gpustat's output and flags, from gpuscope's sampler (docs/GPUSTAT.md).",
    .opts = gopts,
    .nopts = GS_NOPTS(gopts),
};

/* argparse's usage lines, for its errors */
static void usage(FILE *out)
{
    const char *u = gpustat_cli.usage;
    for (int first = 1; *u; first = 0) {
        size_t len = strcspn(u, "\n");
        fprintf(out, "%s%.*s\n", first ? "usage: " : "       ", (int)len, u);
        u += len + (u[len] == '\n');
    }
}

/* A long option by its name or a unique prefix of one (argparse allow_abbrev). */
static const struct gs_opt *find_long(const char *name, size_t len, struct gs_err *err)
{
    const struct gs_opt *hit = NULL;
    char names[256] = "";
    size_t n = 0;
    int hits = 0;

    for (size_t i = 0; i < GS_NOPTS(gopts); i++) {
        if (strncmp(gopts[i].lng, name, len) != 0)
            continue;
        if (strlen(gopts[i].lng) == len)
            return &gopts[i];
        hits++;
        hit = &gopts[i];
        n += (size_t)snprintf(names + n, n < sizeof(names) ? sizeof(names) - n : 0, "%s%s", n ? ", " : "",
                              gopts[i].lng);
    }
    if (hits == 1)
        return hit;
    if (hits)
        gs_err_set(err, GS_E_USAGE, "ambiguous option: %.*s could match %s", (int)len, name, names);
    else
        gs_err_set(err, GS_E_USAGE, "unrecognized arguments: %.*s", (int)len, name);
    return NULL;
}

static const struct gs_opt *find_short(char c)
{
    for (size_t i = 0; i < GS_NOPTS(gopts); i++)
        if (gopts[i].shrt == c)
            return &gopts[i];
    return NULL;
}

/* argparse takes the next word as an optional value unless it looks like an
 * option (a negative number does not: this parser has no such options). */
static bool takes_next(int i, int argc, char **argv)
{
    if (i + 1 >= argc)
        return false;
    const char *v = argv[i + 1];
    return v[0] != '-' || (v[1] >= '0' && v[1] <= '9') || (v[1] == '.' && v[2] >= '0' && v[2] <= '9');
}

static bool same_action(const struct gs_opt *a, const struct gs_opt *b)
{
    return a->set == b->set && a->store == b->store && (a->set || a->off == b->off);
}

/* argparse's name of o's argument: all its spellings, "-F/--show-fan-speed/--show-fan"
 * (the rows of one option are next to each other). */
static const char *argname(const struct gs_opt *o, char *buf, size_t len)
{
    const struct gs_opt *end = gopts + GS_NOPTS(gopts);
    size_t n = 0;
    while (o > gopts && same_action(o - 1, o))
        o--;
    if (o->shrt)
        n = (size_t)snprintf(buf, len, "-%c", o->shrt);
    for (const struct gs_opt *r = o; r < end && (r == o || same_action(r - 1, r)); r++)
        n += (size_t)snprintf(buf + n, n < len ? len - n : 0, "%s%s", n ? "/" : "", r->lng);
    return buf;
}

/* Apply option o with an inline value (or NULL), maybe taking argv[*i + 1]. */
static int apply(struct gargs *a, const struct gs_opt *o, const char *inl, int *i, int argc, char **argv,
                 struct gs_err *err)
{
    const char *v[2] = {inl, NULL};
    char name[96];

    if (!o->arg && inl)
        return gs_err_set(err, GS_E_USAGE, "argument %s: ignored explicit argument '%s'",
                          argname(o, name, sizeof(name)), inl);
    if (!v[0] && o->arg && takes_next(*i, argc, argv))
        v[0] = argv[++*i];
    if (!v[0] && o->arg && !(o->flags & GS_OPT_OPTIONAL))
        return gs_err_set(err, GS_E_USAGE, "argument %s: expected one argument", argname(o, name, sizeof(name)));
    if (o->set)
        return o->set(a, v, err);
    return o->store((char *)a + o->off, v, err);
}

/* gpustat's command line as its argparse parser reads it: long options by
 * unique prefix, short flags combined (-cup), -P/-e/-i with an optional value
 * (-Plimit, -P limit, -P), its error texts. */
static int parse(int argc, char **argv, struct gargs *a, struct gs_err *err)
{
    for (int i = 1; i < argc; i++) {
        const char *t = argv[i];
        if (t[0] == '-' && t[1] == '-' && t[2]) {
            const char *eq = strchr(t, '=');
            const struct gs_opt *o = find_long(t, eq ? (size_t)(eq - t) : strlen(t), err);
            if (!o || apply(a, o, eq ? eq + 1 : NULL, &i, argc, argv, err) < 0)
                return -GS_E_USAGE;
            continue;
        }
        if (t[0] != '-' || !t[1])
            return gs_err_set(err, GS_E_USAGE, "unrecognized arguments: %s", t);
        for (const char *c = t + 1; *c; c++) { /* -cup, -Plimit,draw */
            const struct gs_opt *o = find_short(*c);
            if (!o)
                return gs_err_set(err, GS_E_USAGE, "unrecognized arguments: %s", t);
            if (o->arg && c[1]) {
                if (apply(a, o, c + 1, &i, argc, argv, err) < 0)
                    return -GS_E_USAGE;
                break;
            }
            if (apply(a, o, NULL, &i, argc, argv, err) < 0)
                return -GS_E_USAGE;
        }
    }
    if (a->force_color && a->no_color)
        return gs_err_set(err, GS_E_USAGE, "argument --no-color: not allowed with argument --force-color/--color");
    return 0;
}

/* gpustat's main(): -a, the colour choice, watch mode. */
static int finish(struct gargs *a)
{
    const char *no = getenv("NO_COLOR");

    if (a->show_all) {
        a->g.show_cmd = a->g.show_user = a->g.show_pid = a->g.show_fan = true;
        a->g.codec = "enc,dec";
        a->g.power = "draw,limit";
    }
    a->g.color = a->force_color || (!a->no_color && isatty(STDOUT_FILENO) && !(no && no[0]));
    a->g.color_auto = a->g.color && !a->force_color;
    a->out.format = a->json ? GS_OUT_GPUSTAT_JSON : GS_OUT_GPUSTAT;
    a->out.gpustat = &a->g;
    if (a->interval > 0) {
        if (a->json) {
            fputs("Error: --json and --interval/-i can't be used together.\n", stderr);
            return GS_EXIT_FAILURE;
        }
        a->out.interval_ns = (uint64_t)llround((a->interval < 0.1 ? 0.1 : a->interval) * 1e9);
        a->out.redraw = isatty(STDOUT_FILENO);
    }
    a->g.eol = a->out.redraw ? "\033[K\n" : "\n";
    return GS_EXIT_OK;
}

int cmd_gpustat(int argc, char **argv, const struct gs_cmd_ctx *ctx)
{
    static struct gargs a;
    struct gs_err err = {0};

    memset(&a, 0, sizeof(a));
    a.g.gpuname_width = -1;
    a.g.codec = "";
    a.g.power = "";
    a.out.nvml_lib = ctx->nvml_lib;
    if (parse(argc, argv, &a, &err) < 0) {
        usage(stderr);
        fprintf(stderr, "gpustat: error: %s\n", err.msg);
        return GS_EXIT_USAGE;
    }
    if (a.help) {
        gs_cli_help(stdout, &gpustat_cli);
        return GS_EXIT_OK;
    }
    if (a.version) {
        printf("gpustat %s (gpuscope %s)\n", GPUSTAT_VERSION, GS_VERSION);
        return GS_EXIT_OK;
    }
    int rc = finish(&a);
    return rc != GS_EXIT_OK ? rc : gs_out_run(&a.out);
}
