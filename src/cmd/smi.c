/* SPDX-License-Identifier: MIT */
/*
 * smi.c - `gpuscope smi`, also what runs when the binary is invoked as
 * `nvidia-smi` (a symlink makes gpuscope a drop-in where nvidia-smi is
 * missing, e.g. in containers): nvidia-smi's options and outputs. The summary
 * table, -L, -q [-d SECTION,...], -q -x, dmon and pmon are written by
 * src/format/smi*.c (XML by the smixml module); --query-* and --format are
 * `gpuscope query`'s. docs/SMI.md.
 */
#include "cmd/cmd.h"
#include "core/module.h"
#include "format/format.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct sargs {
    struct gs_out_opts out;
    bool list, query, xml, help, version;
    const char *display; /* -d */
    const char *file;    /* -f */
    bool query_fields;   /* --query-* / --format / --help-query-*: gpuscope query's job */
};

static void smi_usage(FILE *out)
{
    fputs("usage: gpuscope smi [options]            (also: the binary invoked as nvidia-smi)\n"
          "       gpuscope smi dmon [-i IDS] [-s GROUPS] [-d SECONDS] [-c COUNT] [-o D|T|DT]\n"
          "       gpuscope smi pmon [-i IDS] [-s u|m|um] [-d SECONDS] [-c COUNT] [-o D|T|DT]\n\n"
          "nvidia-smi's outputs, from gpuscope's sampler:\n"
          "  (no option)              the summary table with its processes\n"
          "  -L, --list-gpus          one line per GPU\n"
          "  -q, --query              everything, grouped as nvidia-smi -q prints it\n"
          "  -d, --display=SECTIONS   with -q: MEMORY, UTILIZATION, ECC, TEMPERATURE, POWER, CLOCK, COMPUTE,\n"
          "                           PIDS, PERFORMANCE, PAGE_RETIREMENT, ACCOUNTING, ENCODER_STATS,\n"
          "                           ROW_REMAPPER, ... comma-separated\n"
          "  -x, --xml-format         with -q: the nvsmi_log XML; --dtd embeds its DTD\n"
          "  -i, --id=IDS             only these GPUs (index, UUID or PCI bus id)\n"
          "  -l, --loop=SECONDS       repeat; -lms, --loop-ms=MS\n"
          "  -f, --filename=FILE      write to FILE instead of stdout\n"
          "  --query-gpu=, --query-compute-apps=, --format=, --help-query-gpu, --help-query-compute-apps\n"
          "                           as 'gpuscope query' (nvidia-smi's CSV)\n"
          "See docs/SMI.md.\n",
          out);
}

static int bad(struct gs_err *err, const char *what, const char *val)
{
    return gs_err_set(err, GS_E_USAGE, "smi: %s '%s' (see 'gpuscope smi --help')", what, val);
}

static int interval(const char *val, double scale, uint64_t *ns, struct gs_err *err)
{
    char *end;
    double v = strtod(val, &end);

    if (end == val || *end || !isfinite(v) || v <= 0 || v * scale > 1e6)
        return bad(err, "invalid interval", val);
    *ns = (uint64_t)llround(v * scale * 1e9);
    return 0;
}

/* "-i 0" and "--id=0" and "-i=0": the value of option i, or NULL when argv[*k] is not it. */
static const char *optval(int argc, char **argv, int *k, const char *shrt, const char *lng, bool *missing)
{
    const char *a = argv[*k];
    size_t ls = strlen(shrt), ll = lng ? strlen(lng) : 0;

    *missing = false;
    if ((!strcmp(a, shrt) || (lng && !strcmp(a, lng)))) {
        if (*k + 1 >= argc) {
            *missing = true;
            return NULL;
        }
        return argv[++*k];
    }
    if (!strncmp(a, shrt, ls) && a[ls] == '=')
        return a + ls + 1;
    if (lng && !strncmp(a, lng, ll) && a[ll] == '=')
        return a + ll + 1;
    return NULL;
}

static int parse(int argc, char **argv, struct sargs *a, struct gs_err *err)
{
    for (int k = 1; k < argc; k++) {
        const char *t = argv[k], *v;
        bool miss;
        if (!strcmp(t, "-h") || !strcmp(t, "--help"))
            a->help = true;
        else if (!strcmp(t, "--version"))
            a->version = true;
        else if (!strcmp(t, "-L") || !strcmp(t, "--list-gpus"))
            a->list = true;
        else if (!strcmp(t, "-q") || !strcmp(t, "--query"))
            a->query = true;
        else if (!strcmp(t, "-x") || !strcmp(t, "--xml-format"))
            a->xml = true;
        else if (!strcmp(t, "--dtd"))
            a->out.smi_dtd = true;
        else if (!strncmp(t, "--query-", 8) || !strncmp(t, "--format", 8) || !strncmp(t, "--help-query-", 13))
            a->query_fields = true;
        else if ((v = optval(argc, argv, &k, "-d", "--display", &miss)) || miss) {
            if (miss)
                return bad(err, "option needs a value:", t);
            a->display = v;
        } else if ((v = optval(argc, argv, &k, "-i", "--id", &miss)) || miss) {
            if (miss)
                return bad(err, "option needs a value:", t);
            a->out.only_ids = v;
        } else if ((v = optval(argc, argv, &k, "-f", "--filename", &miss)) || miss) {
            if (miss)
                return bad(err, "option needs a value:", t);
            a->file = v;
        } else if ((v = optval(argc, argv, &k, "-lms", "--loop-ms", &miss)) || miss) {
            if (miss || interval(v, 1e-3, &a->out.interval_ns, err) < 0)
                return miss ? bad(err, "option needs a value:", t) : -GS_E_USAGE;
        } else if ((v = optval(argc, argv, &k, "-l", "--loop", &miss)) || miss) {
            if (miss || interval(v, 1.0, &a->out.interval_ns, err) < 0)
                return miss ? bad(err, "option needs a value:", t) : -GS_E_USAGE;
        } else
            return bad(err, "unknown option", t);
    }
    return 0;
}

/* dmon / pmon: -i, -s, -d, -c, -o. */
static int parse_mon(int argc, char **argv, struct sargs *a, struct gs_err *err)
{
    struct gs_smi_mon *m = &a->out.mon;

    a->out.interval_ns = 1000000000ull;
    for (int k = 1; k < argc; k++) {
        const char *t = argv[k], *v;
        bool miss;
        char *end;
        if (!strcmp(t, "-h") || !strcmp(t, "--help")) {
            a->help = true;
        } else if ((v = optval(argc, argv, &k, "-i", "--id", &miss)) || miss) {
            if (miss)
                return bad(err, "option needs a value:", t);
            a->out.only_ids = v;
        } else if ((v = optval(argc, argv, &k, "-s", NULL, &miss)) || miss) {
            if (miss || !gs_smi_mon_groups_ok(m, v))
                return bad(err, miss ? "option needs a value:" : "unknown -s metric group in", miss ? t : v);
            m->groups = v;
        } else if ((v = optval(argc, argv, &k, "-d", NULL, &miss)) || miss) {
            if (miss || interval(v, 1.0, &a->out.interval_ns, err) < 0)
                return miss ? bad(err, "option needs a value:", t) : -GS_E_USAGE;
        } else if ((v = optval(argc, argv, &k, "-c", NULL, &miss)) || miss) {
            unsigned long long n = miss ? 0 : strtoull(v, &end, 10);
            if (miss || end == v || *end || !n || v[0] == '-')
                return bad(err, "-c needs a positive count, not", miss ? t : v);
            a->out.count = n;
        } else if ((v = optval(argc, argv, &k, "-o", NULL, &miss)) || miss) {
            if (miss || !*v || strspn(v, "DT") != strlen(v))
                return bad(err, "-o takes D, T or DT, not", miss ? t : v);
            m->date = strchr(v, 'D');
            m->time = strchr(v, 'T');
        } else if ((v = optval(argc, argv, &k, "-f", "--filename", &miss)) || miss) {
            if (miss)
                return bad(err, "option needs a value:", t);
            a->file = v;
        } else {
            return bad(err, "unknown option", t);
        }
    }
    return 0;
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

static int smi_mon(int argc, char **argv, struct sargs *a, bool pmon)
{
    struct gs_err err = { 0 };

    a->out.format = GS_OUT_SMI_MON;
    a->out.mon.pmon = pmon;
    if (parse_mon(argc, argv, a, &err) < 0) {
        gs_err_print(&err);
        return GS_EXIT_USAGE;
    }
    if (a->help) {
        printf("usage: gpuscope smi %s [-i IDS] [-s %s] [-d SECONDS] [-c COUNT] [-o D|T|DT] [-f FILE]\n",
               pmon ? "pmon" : "dmon", pmon ? "u|m|um" : "pucvmet");
        return GS_EXIT_OK;
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
    if (parse(argc, argv, &a, &err) < 0) {
        gs_err_print(&err);
        return GS_EXIT_USAGE;
    }
    if (a.query_fields) /* nvidia-smi's CSV is gpuscope query's (same options) */
        return cmd_query(argc, argv, ctx);
    if (a.help) {
        smi_usage(stdout);
        return GS_EXIT_OK;
    }
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
