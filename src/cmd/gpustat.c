/* SPDX-License-Identifier: MIT */
/*
 * gpustat.c - `gpuscope gpustat`, also what the binary is when invoked as
 * `gpustat` (a symlink): gpustat 1.1's command line, parsed as its argparse
 * parser does (short flags combined, -P/-e/-i with an optional value, unique
 * prefixes of long options), then the query loop with gpustat's output
 * (src/format/gpustat.c). docs/GPUSTAT.md.
 */
#include "cmd/cmd.h"
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

enum gkind { G_FLAG, G_OPTIONAL, G_REQUIRED };

struct gopt {
    const char *lng[3]; /* long names (the first is the canonical one) */
    char shrt;          /* short letter or 0 */
    enum gkind kind;
    const char *metavar;
    int (*set)(struct gargs *a, const char *val, struct gs_err *err); /* val NULL: the flag's const */
    const char *help;
};

static int set_force_color(struct gargs *a, const char *v, struct gs_err *e)
{
    (void)v, (void)e;
    a->force_color = true;
    return 0;
}

static int set_no_color(struct gargs *a, const char *v, struct gs_err *e)
{
    (void)v, (void)e;
    a->no_color = true;
    return 0;
}

static int set_id(struct gargs *a, const char *v, struct gs_err *e)
{
    (void)e;
    a->out.only_ids = v;
    return 0;
}

#define FLAG_SETTER(fn, field)                                       \
    static int fn(struct gargs *a, const char *v, struct gs_err *e) \
    {                                                                \
        (void)v, (void)e;                                            \
        field = true;                                                \
        return 0;                                                    \
    }
FLAG_SETTER(set_all, a->show_all)
FLAG_SETTER(set_cmd, a->g.show_cmd)
FLAG_SETTER(set_full, a->g.show_full_cmd)
FLAG_SETTER(set_user, a->g.show_user)
FLAG_SETTER(set_pid, a->g.show_pid)
FLAG_SETTER(set_fan, a->g.show_fan)
FLAG_SETTER(set_json, a->json)
FLAG_SETTER(set_no_header, a->g.no_header)
FLAG_SETTER(set_no_procs, a->g.no_processes)
FLAG_SETTER(set_debug, a->out.debug)
FLAG_SETTER(set_help, a->help)
FLAG_SETTER(set_version, a->version)

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

static int set_codec(struct gargs *a, const char *v, struct gs_err *err)
{
    static const char *const choices[] = {"", "enc", "dec", "enc,dec", NULL};
    a->g.codec = v ? choose(v, choices, "-e/--show-codec", err) : "enc,dec";
    return a->g.codec ? 0 : -GS_E_USAGE;
}

static int set_power(struct gargs *a, const char *v, struct gs_err *err)
{
    static const char *const choices[] = {"", "draw", "limit", "draw,limit", "limit,draw", NULL};
    a->g.power = v ? choose(v, choices, "-P/--show-power", err) : "draw,limit";
    return a->g.power ? 0 : -GS_E_USAGE;
}

static int set_interval(struct gargs *a, const char *v, struct gs_err *err)
{
    char *end;

    if (!v) {
        a->interval = 1.0;
        return 0;
    }
    a->interval = strtod(v, &end);
    if (end == v || *end || !isfinite(a->interval) || a->interval > 1e6)
        return gs_err_set(err, GS_E_USAGE, "argument -i/--interval/--watch: invalid float value: '%s'", v);
    return 0;
}

static int set_width(struct gargs *a, const char *v, struct gs_err *err)
{
    char *end;
    long w = strtol(v, &end, 10);

    if (end == v || *end)
        return gs_err_set(err, GS_E_USAGE, "argument --gpuname-width: invalid nonnegative_int value: '%s'", v);
    if (w < 0 || w > 1000)
        return gs_err_set(err, GS_E_USAGE, "argument --gpuname-width: Only non-negative integers are allowed.");
    a->g.gpuname_width = (int)w;
    return 0;
}

static const struct gopt gopts[] = {
    {{"--help"}, 'h', G_FLAG, NULL, set_help, "show this help message and exit"},
    {{"--force-color", "--color"}, 0, G_FLAG, NULL, set_force_color, "Force to output with colors"},
    {{"--no-color"}, 0, G_FLAG, NULL, set_no_color, "Suppress colored output"},
    {{"--id"}, 0, G_REQUIRED, "ID", set_id, "Target a specific GPU (index; also UUID or PCI bus id)."},
    {{"--show-all"}, 'a', G_FLAG, NULL, set_all, "Display all gpu properties above"},
    {{"--show-cmd"}, 'c', G_FLAG, NULL, set_cmd, "Display cmd name of running process"},
    {{"--show-full-cmd"}, 'f', G_FLAG, NULL, set_full, "Display full command and cpu stats of running process"},
    {{"--show-user"}, 'u', G_FLAG, NULL, set_user, "Display username of running process"},
    {{"--show-pid"}, 'p', G_FLAG, NULL, set_pid, "Display PID of running process"},
    {{"--show-fan-speed", "--show-fan"}, 'F', G_FLAG, NULL, set_fan, "Display GPU fan speed"},
    {{"--show-codec"}, 'e', G_OPTIONAL, "{,enc,dec,enc,dec}", set_codec, "Show encoder/decoder utilization"},
    {{"--show-power"}, 'P', G_OPTIONAL, "{,draw,limit,draw,limit,limit,draw}", set_power,
     "Show GPU power usage or draw (and/or limit)"},
    {{"--json"}, 0, G_FLAG, NULL, set_json, "Print all the information in JSON format"},
    {{"--interval", "--watch"}, 'i', G_OPTIONAL, "INTERVAL", set_interval,
     "Use watch mode if given; seconds to wait between updates"},
    {{"--no-header"}, 0, G_FLAG, NULL, set_no_header, "Suppress header message"},
    {{"--gpuname-width"}, 0, G_REQUIRED, "GPUNAME_WIDTH", set_width,
     "The width at which GPU names will be displayed."},
    {{"--debug"}, 0, G_FLAG, NULL, set_debug, "Allow to print additional informations for debugging."},
    {{"--no-processes"}, 0, G_FLAG, NULL, set_no_procs,
     "Do not display running process information (memory, user, etc.)"},
    {{"--version"}, 'v', G_FLAG, NULL, set_version, "show program's version number and exit"},
};

#define NGOPTS (sizeof(gopts) / sizeof(gopts[0]))

static void usage(FILE *out)
{
    fprintf(out, "usage: gpustat [-h] [--force-color | --no-color] [--id ID] [-a] [-c] [-f] [-u] [-p] [-F]\n"
                 "               [-e [{,enc,dec,enc,dec}]] [-P [{,draw,limit,draw,limit,limit,draw}]] [--json]\n"
                 "               [-i [INTERVAL]] [--no-header] [--gpuname-width GPUNAME_WIDTH] [--debug]\n"
                 "               [--no-processes] [-v]\n");
}

static void help(void)
{
    usage(stdout);
    printf("\ngpustat's output and flags, from gpuscope's sampler (docs/GPUSTAT.md).\n\noptions:\n");
    for (size_t i = 0; i < NGOPTS; i++) {
        char left[96] = "";
        size_t n = 0;
        if (gopts[i].shrt)
            n += (size_t)snprintf(left + n, sizeof(left) - n, "-%c, ", gopts[i].shrt);
        for (int k = 0; k < 3 && gopts[i].lng[k]; k++)
            n += (size_t)snprintf(left + n, sizeof(left) - n, "%s%s", k ? ", " : "", gopts[i].lng[k]);
        if (gopts[i].metavar && n < sizeof(left))
            snprintf(left + n, sizeof(left) - n, gopts[i].kind == G_OPTIONAL ? " [%s]" : " %s", gopts[i].metavar);
        printf("  %-34s %s\n", left, gopts[i].help);
    }
}

/* A long option by its name or a unique prefix of one (argparse allow_abbrev). */
static const struct gopt *find_long(const char *name, size_t len, struct gs_err *err)
{
    const struct gopt *hit = NULL;
    char names[256] = "";
    size_t n = 0;
    int hits = 0;

    for (size_t i = 0; i < NGOPTS; i++)
        for (int k = 0; k < 3 && gopts[i].lng[k]; k++) {
            if (strncmp(gopts[i].lng[k], name, len) != 0)
                continue;
            if (strlen(gopts[i].lng[k]) == len)
                return &gopts[i];
            hits++;
            hit = &gopts[i];
            n += (size_t)snprintf(names + n, n < sizeof(names) ? sizeof(names) - n : 0, "%s%s", n ? ", " : "",
                                  gopts[i].lng[k]);
        }
    if (hits == 1)
        return hit;
    if (hits)
        gs_err_set(err, GS_E_USAGE, "ambiguous option: %.*s could match %s", (int)len, name, names);
    else
        gs_err_set(err, GS_E_USAGE, "unrecognized arguments: %.*s", (int)len, name);
    return NULL;
}

static const struct gopt *find_short(char c)
{
    for (size_t i = 0; i < NGOPTS; i++)
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

/* Apply option o with an inline value (or NULL), maybe taking argv[*i + 1]. */
static int apply(struct gargs *a, const struct gopt *o, const char *inl, int *i, int argc, char **argv,
                 struct gs_err *err)
{
    const char *val = inl;

    if (o->kind == G_FLAG && inl)
        return gs_err_set(err, GS_E_USAGE, "argument %s: ignored explicit argument '%s'", o->lng[0], inl);
    if (!val && o->kind != G_FLAG && takes_next(*i, argc, argv))
        val = argv[++*i];
    if (!val && o->kind == G_REQUIRED)
        return gs_err_set(err, GS_E_USAGE, "argument %s: expected one argument", o->lng[0]);
    return o->set(a, val, err);
}

static int parse(int argc, char **argv, struct gargs *a, struct gs_err *err)
{
    for (int i = 1; i < argc; i++) {
        const char *t = argv[i];
        int rc;
        if (t[0] == '-' && t[1] == '-' && t[2]) {
            const char *eq = strchr(t, '=');
            const struct gopt *o = find_long(t, eq ? (size_t)(eq - t) : strlen(t), err);
            if (!o || (rc = apply(a, o, eq ? eq + 1 : NULL, &i, argc, argv, err)) < 0)
                return -GS_E_USAGE;
            continue;
        }
        if (t[0] != '-' || !t[1])
            return gs_err_set(err, GS_E_USAGE, "unrecognized arguments: %s", t);
        for (const char *c = t + 1; *c; c++) { /* -cup, -Plimit,draw */
            const struct gopt *o = find_short(*c);
            if (!o)
                return gs_err_set(err, GS_E_USAGE, "unrecognized arguments: %s", t);
            if (o->kind != G_FLAG && c[1]) {
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
        help();
        return GS_EXIT_OK;
    }
    if (a.version) {
        printf("gpustat %s (gpuscope %s)\n", GPUSTAT_VERSION, GS_VERSION);
        return GS_EXIT_OK;
    }
    int rc = finish(&a);
    return rc != GS_EXIT_OK ? rc : gs_out_run(&a.out);
}
