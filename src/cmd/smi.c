/* SPDX-License-Identifier: MIT */
/*
 * smi.c - `gpuscope smi`, also what runs when the binary is invoked as
 * `nvidia-smi` (a symlink makes gpuscope a drop-in where nvidia-smi is
 * missing, e.g. in containers): nvidia-smi's options and outputs. The summary
 * table, -L, -q [-d SECTION,...], -q -x, dmon and pmon are written by
 * src/format/smi*.c (XML by the smixml module); --query-* and --format are
 * `gpuscope query`'s. docs/SMI.md.
 *
 * The options are one cmd/opts.h table, parsed by gs_cli_parse after
 * cmd/smi_argv.c has rewritten nvidia-smi's own spellings (-lms 500, -i=0);
 * dmon and pmon parse the table's last rows, where -d is the delay, not -q's
 * sections (nvidia-smi's meanings, kept because scripts use them).
 */
#include "cmd/cmd.h"
#include "cmd/opts.h"
#include "cmd/smi_argv.h"
#include "core/module.h"
#include "format/format.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct sargs {
    struct gs_out_opts out;
    bool mon;            /* dmon or pmon: their rows of the table, not the others */
    bool list, query, xml, version;
    const char *display; /* -d */
    const char *file;    /* -f */
    bool query_fields;   /* --query-* / --format / --help-query-*: gpuscope query's job */
};

#define S(ctx) ((struct sargs *)(ctx))

/* A row of the other form (dmon/pmon's in the main form, or the reverse). */
static int wrong_form(struct sargs *a, const char *opt, struct gs_err *err)
{
    return gs_err_set(err, GS_E_USAGE, a->mon ? "smi: %s does not go with dmon or pmon"
                                              : "smi: %s goes with dmon or pmon (gpuscope smi dmon %s ...)",
                      opt, opt);
}

static int interval(const char *opt, const char *val, double scale, uint64_t *ns, struct gs_err *err)
{
    char *end;
    double v = strtod(val, &end);

    if (end == val || *end || !isfinite(v) || v <= 0 || v * scale > 1e6)
        return gs_err_set(err, GS_E_USAGE, "smi: %s: invalid interval '%s' (see 'gpuscope smi --help')", opt, val);
    *ns = (uint64_t)llround(v * scale * 1e9);
    return 0;
}

#define SMI_FLAG(fn, field, name)                                    \
    static int fn(void *ctx, const char *const *v, struct gs_err *err) \
    {                                                                \
        (void)v;                                                     \
        if (S(ctx)->mon)                                             \
            return wrong_form(ctx, name, err);                       \
        S(ctx)->field = true;                                        \
        return 0;                                                    \
    }
SMI_FLAG(o_list, list, "-L")
SMI_FLAG(o_query, query, "-q")
SMI_FLAG(o_xml, xml, "-x")
SMI_FLAG(o_dtd, out.smi_dtd, "--dtd")
SMI_FLAG(o_version, version, "--version")
SMI_FLAG(o_fields, query_fields, "--query-gpu")

/* -d: the sections of -q, or (dmon, pmon) the seconds between lines */
static int o_display(void *ctx, const char *const *v, struct gs_err *err)
{
    if (S(ctx)->mon)
        return interval("-d", v[0], 1.0, &S(ctx)->out.interval_ns, err);
    S(ctx)->display = v[0];
    return 0;
}

static int o_loop(void *ctx, const char *const *v, struct gs_err *err)
{
    return S(ctx)->mon ? wrong_form(ctx, "-l", err) : interval("--loop", v[0], 1.0, &S(ctx)->out.interval_ns, err);
}

static int o_loop_ms(void *ctx, const char *const *v, struct gs_err *err)
{
    return S(ctx)->mon ? wrong_form(ctx, "-lms", err)
                       : interval("--loop-ms", v[0], 1e-3, &S(ctx)->out.interval_ns, err);
}

static int o_form(void *ctx, const char *const *v, struct gs_err *err)
{
    (void)ctx;
    if (!strcmp(v[0], "dmon") || !strcmp(v[0], "pmon"))
        return gs_err_set(err, GS_E_USAGE, "smi: %s comes first: gpuscope smi %s [options]", v[0], v[0]);
    return gs_err_set(err, GS_E_USAGE, "smi: unexpected argument '%s' (see 'gpuscope smi --help')", v[0]);
}

/* ---- dmon and pmon ---- */

static int o_delay(void *ctx, const char *const *v, struct gs_err *err)
{
    return !S(ctx)->mon ? wrong_form(ctx, "--delay", err)
                        : interval("--delay", v[0], 1.0, &S(ctx)->out.interval_ns, err);
}

static int o_count(void *ctx, const char *const *v, struct gs_err *err)
{
    char *end;
    unsigned long long n = strtoull(v[0], &end, 10);
    if (!S(ctx)->mon)
        return wrong_form(ctx, "-c", err);
    if (end == v[0] || *end || !n || v[0][0] == '-')
        return gs_err_set(err, GS_E_USAGE, "smi: -c needs a positive count, not '%s'", v[0]);
    S(ctx)->out.count = n;
    return 0;
}

static int o_select(void *ctx, const char *const *v, struct gs_err *err)
{
    if (!S(ctx)->mon)
        return wrong_form(ctx, "-s", err);
    if (!gs_smi_mon_groups_ok(&S(ctx)->out.mon, v[0]))
        return gs_err_set(err, GS_E_USAGE, "smi: unknown -s metric group in '%s' (dmon: pucvmet, pmon: um)", v[0]);
    S(ctx)->out.mon.groups = v[0];
    return 0;
}

static int o_options(void *ctx, const char *const *v, struct gs_err *err)
{
    if (!S(ctx)->mon)
        return wrong_form(ctx, "-o", err);
    if (!*v[0] || strspn(v[0], "DT") != strlen(v[0]))
        return gs_err_set(err, GS_E_USAGE, "smi: -o takes D, T or DT, not '%s'", v[0]);
    S(ctx)->out.mon.date = strchr(v[0], 'D');
    S(ctx)->out.mon.time = strchr(v[0], 'T');
    return 0;
}

#define IDS GS_OPT_STORE_STR(struct sargs, out.only_ids)
#define FILENAME GS_OPT_STORE_STR(struct sargs, file)

/* nvidia-smi's options; the rows from the one with a .section on are dmon's
 * and pmon's (their -d is the delay), and the main form finds its own -i, -d
 * and -f first. */
static const struct gs_opt smi_opts[] = {
    { "--list-gpus", 'L', NULL, o_list, "one line per GPU",
      .man = "One line per GPU." },
    { "--query", 'q', NULL, o_query, "everything, grouped as nvidia-smi -q prints it",
      .man = "Everything, grouped as\n"
             ".Nm nvidia-smi Fl q\n"
             "prints it." },
    { "--display", 'd', "SECTIONS", o_display,
      "with -q: MEMORY, UTILIZATION, ECC, TEMPERATURE, POWER, CLOCK, COMPUTE,\n"
      "PIDS, PERFORMANCE, PAGE_RETIREMENT, ACCOUNTING, ENCODER_STATS,\nROW_REMAPPER, ... comma-separated",
      .comp = GS_COMP_CHOICES, .flags = GS_OPT_LIST,
      .choices = "MEMORY UTILIZATION ECC TEMPERATURE POWER CLOCK COMPUTE PIDS PERFORMANCE SUPPORTED_CLOCKS "
                 "PAGE_RETIREMENT ACCOUNTING ENCODER_STATS SUPPORTED_GPU_TARGET_TEMP VOLTAGE FBC_STATS "
                 "ROW_REMAPPER GSP_FIRMWARE_VERSION POWER_SMOOTHING POWER_PROFILES",
      .man = "With\n"
             ".Fl q :\n"
             "only these comma-separated sections (MEMORY, UTILIZATION, ECC, TEMPERATURE,\n"
             "POWER, CLOCK, COMPUTE, PIDS, PERFORMANCE, PAGE_RETIREMENT, ACCOUNTING,\n"
             "ENCODER_STATS, ROW_REMAPPER, ...).\n"
             "With\n"
             ".Cm dmon\n"
             "or\n"
             ".Cm pmon :\n"
             "the interval in seconds." },
    { "--xml-format", 'x', NULL, o_xml, "with -q: the nvsmi_log XML; --dtd embeds its DTD",
      .man = "With\n"
             ".Fl q :\n"
             "the nvsmi_log XML." },
    { "--dtd", 0, NULL, o_dtd, "with -q -x: embed the DTD in the XML",
      .man = "With\n"
             ".Fl q Fl x :\n"
             "embed the DTD in the XML." },
    { "--id", 'i', "IDS", NULL, "only these GPUs (index, UUID or PCI bus id)", .comp = GS_COMP_GPU,
      .flags = GS_OPT_LIST, IDS,
      .man = "Only these GPUs (index, UUID or PCI bus id)." },
    { "--loop", 'l', "SECONDS", o_loop, "repeat every SECONDS",
      .man = "Repeat every\n"
             ".Ar SECONDS ." },
    { "--loop-ms", 0, "MS", o_loop_ms, "repeat every MS milliseconds (also nvidia-smi's -lms MS)",
      .man = "Repeat every\n"
             ".Ar MS\n"
             "milliseconds\n"
             ".Pq Fl lms No is nvidia-smi's spelling ." },
    { "--filename", 'f', "FILE", NULL, "write to FILE instead of stdout", .comp = GS_COMP_FILE, FILENAME,
      .man = "Write to\n"
             ".Ar FILE\n"
             "instead of standard output." },
    { "--query-gpu", 0, "FIELDS", o_fields, "nvidia-smi's CSV, as 'gpuscope query' (see its --help)",
      .comp = GS_COMP_FIELDS, .choices = "--help-query-gpu", .flags = GS_OPT_LIST,
      .man = "nvidia-smi's CSV, as\n"
             ".Xr gpuscope-query 1 ." },
    { "--query-compute-apps", 0, "FIELDS", o_fields, "the same, a row per compute process",
      .comp = GS_COMP_FIELDS, .choices = "--help-query-compute-apps", .flags = GS_OPT_LIST },
    { "--format", 0, "FMT", o_fields, "with --query-*: csv[,noheader][,nounits]", .comp = GS_COMP_CHOICES,
      .choices = "csv noheader nounits", .flags = GS_OPT_LIST },
    { "--help-query-gpu", 0, NULL, o_fields, "list the --query-gpu fields",
      .man = "List the fields, as\n"
             ".Xr gpuscope-query 1 ." },
    { "--help-query-compute-apps", 0, NULL, o_fields, "list the --query-compute-apps fields" },
    { "--version", 0, NULL, o_version, "what this is",
      .man = "Say what this is." },
    { NULL, 0, "dmon|pmon", o_form, "the device or process monitor (first)", .comp = GS_COMP_CHOICES },
    { "--id", 'i', "IDS", NULL, "only these GPUs (index, UUID or PCI bus id, comma-separated)",
      .comp = GS_COMP_GPU, .flags = GS_OPT_LIST, IDS,
      .section = "The monitors, gpuscope smi dmon|pmon [options]:" },
    { "--select", 's', "GROUPS", o_select, "metric groups: dmon p, u, c, v, m, e, t (default puc); pmon u, m (u)",
      .man = "With\n"
             ".Cm dmon\n"
             "or\n"
             ".Cm pmon :\n"
             "the metric groups to show." },
    { "--delay", 'd', "SECONDS", o_delay, "seconds between lines (default 1)",
      .man = "With\n"
             ".Cm dmon\n"
             "or\n"
             ".Cm pmon :\n"
             "the seconds between lines (default 1)." },
    { "--count", 'c', "COUNT", o_count, "stop after COUNT lines",
      .man = "With\n"
             ".Cm dmon\n"
             "or\n"
             ".Cm pmon :\n"
             "stop after\n"
             ".Ar COUNT\n"
             "lines." },
    { "--options", 'o', "D|T|DT", o_options, "prefix each line with the date, the time, or both",
      .comp = GS_COMP_CHOICES,
      .man = "With\n"
             ".Cm dmon\n"
             "or\n"
             ".Cm pmon :\n"
             "prefix each line with the date, the time, or both." },
    { "--filename", 'f', "FILE", NULL, "write to FILE instead of stdout", .comp = GS_COMP_FILE, FILENAME },
};

const struct gs_cli smi_cli = {
    .name = "smi",
    .usage = "gpuscope smi [options]            (also: the binary invoked as nvidia-smi)\n"
             "gpuscope smi dmon [-i IDS] [-s GROUPS] [-d SECONDS] [-c COUNT] [-o D|T|DT] [-f FILE]\n"
             "gpuscope smi pmon [-i IDS] [-s u|m|um] [-d SECONDS] [-c COUNT] [-o D|T|DT] [-f FILE]",
    .about = "nvidia-smi's outputs, from gpuscope's sampler: without an option, the summary table with its\n"
             "processes.",
    .opts = smi_opts,
    .nopts = GS_NOPTS(smi_opts),
    .footer = "See docs/SMI.md.",
};

/* nvidia-smi's spellings (-lms, -i=0: cmd/smi_argv.h), then cli's table. */
static int parse(const struct gs_cli *cli, int argc, char **argv, struct sargs *a, struct gs_err *err)
{
    char **v;
    int n = gs_smi_argv(cli, argc, argv, &v);
    if (n < 0)
        return gs_err_set(err, GS_E_NOMEM, "smi: out of memory");
    int rc = gs_cli_parse(cli, n, v, a, err);
    free(v);
    return rc;
}

static int run_out(struct sargs *a, struct gs_err *err)
{
    if (a->file && !freopen(a->file, "w", stdout)) {
        gs_err_set(err, GS_E_IO, "smi: cannot write '%s'", a->file);
        gs_err_print(err);
        return GS_EXIT_FAILURE;
    }
    return gs_out_run(&a->out);
}

/* dmon / pmon: the rows from the section on. */
static int smi_mon(int argc, char **argv, struct sargs *a, bool pmon)
{
    struct gs_err err = { 0 };
    size_t k = 0;
    while (k < GS_NOPTS(smi_opts) && !smi_opts[k].section)
        k++;
    const struct gs_cli mon = {
        .name = "smi",
        .usage = pmon ? "gpuscope smi pmon [-i IDS] [-s u|m|um] [-d SECONDS] [-c COUNT] [-o D|T|DT] [-f FILE]"
                      : "gpuscope smi dmon [-i IDS] [-s GROUPS] [-d SECONDS] [-c COUNT] [-o D|T|DT] [-f FILE]",
        .opts = smi_opts + k,
        .nopts = GS_NOPTS(smi_opts) - k,
    };

    a->mon = true;
    a->out.format = GS_OUT_SMI_MON;
    a->out.mon.pmon = pmon;
    a->out.interval_ns = 1000000000ull;
    int rc = parse(&mon, argc, argv, a, &err);
    if (rc == GS_OPT_DONE)
        return GS_EXIT_OK;
    if (rc < 0) {
        gs_err_print(&err);
        return GS_EXIT_USAGE;
    }
    return run_out(a, &err);
}

int cmd_smi(int argc, char **argv, const struct gs_cmd_ctx *ctx)
{
    static struct sargs a;
    struct gs_err err = { 0 };

    memset(&a, 0, sizeof(a));
    a.out.nvml_lib = ctx->nvml_lib;
    if (argc > 1 && (!strcmp(argv[1], "dmon") || !strcmp(argv[1], "pmon")))
        return smi_mon(argc - 1, argv + 1, &a, argv[1][0] == 'p');
    int rc = parse(&smi_cli, argc, argv, &a, &err);
    if (rc == GS_OPT_DONE)
        return GS_EXIT_OK;
    if (rc < 0) {
        gs_err_print(&err);
        return GS_EXIT_USAGE;
    }
    if (a.query_fields) /* nvidia-smi's CSV is gpuscope query's (same options) */
        return cmd_query(argc, argv, ctx);
    if (a.version) {
        printf("gpuscope smi (nvidia-smi's outputs, from gpuscope's sampler)\n");
        return GS_EXIT_OK;
    }
    if ((a.xml || a.display) && !a.query) {
        gs_err_set(&err, GS_E_USAGE, "smi: %s goes with -q", a.xml ? "-x" : "-d");
        gs_err_print(&err);
        return GS_EXIT_USAGE;
    }
    if (a.display) {
        char word[64];
        if (a.xml || gs_smi_display_parse(a.display, &a.out.smi_display, word, sizeof(word)) < 0) {
            if (a.xml)
                gs_err_set(&err, GS_E_USAGE, "smi: -d does not work with -x (as nvidia-smi)");
            else
                gs_err_set(&err, GS_E_USAGE, "smi: unknown -d section '%s' (MEMORY, UTILIZATION, ECC, ...)", word);
            gs_err_print(&err);
            return GS_EXIT_USAGE;
        }
    }
    a.out.format = a.list ? GS_OUT_SMI_LIST : !a.query ? GS_OUT_SMI_TABLE : a.xml ? GS_OUT_SMI_XML : GS_OUT_SMI_QUERY;
    if (a.out.format == GS_OUT_SMI_XML) {
        void *fn = gs_module_symbol("smixml", "gs_smi_xml_write", &err);
        if (!fn) {
            gs_err_print(&err);
            return gs_exit_from_errc(err.code);
        }
        memcpy(&a.out.smi_xml, &fn, sizeof(fn));
    }
    return run_out(&a, &err);
}
