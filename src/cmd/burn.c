/* SPDX-License-Identifier: MIT */
/*
 * burn.c - `gpuscope burn`: option parsing, then src/burn/. A verified stress
 * test of every selected GPU with a verdict per GPU and an exit status a
 * script can trust (0 only when every GPU passed). docs/BURN.md.
 */
#include "burn/burn.h"
#include "cmd/cmd.h"
#include "health/report.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *out)
{
    fprintf(out,
            "usage: gpuscope burn [options]\n\n"
            "Load every selected GPU with verified kernels (FP32/FP64 compute, tensor cores, memory patterns)\n"
            "while watching temperature, power, clocks, throttle reasons, Xids, ECC, PCIe and GPU presence;\n"
            "then a verdict per GPU (PASS, WARN, FAIL) with the evidence and what to do.\n\n"
            "  --duration=DUR        how long (default 10m; 60s, 2h ...)\n"
            "  -i, --id=IDS          only these GPUs (index, UUID or PCI bus id, comma-separated)\n"
            "  --memory=SIZE         memory for the memory patterns: a share of free memory (90%%, the default)\n"
            "                        or a size (4G, 512M)\n"
            "  --workload=LIST       compute, tensor, memory (default all; compute = fp32,fp64)\n"
            "  --json                the report as JSON (status lines go to a terminal's stderr)\n"
            "  --db=FILE             also write the samples and the verdict into the recorder's database\n"
            "                        (gpuscope report shows the burn with its throttling and events)\n"
            "  --interval=DUR        sampling and status interval (default 1s)\n"
            "  --status=auto|off     the live status lines (auto: redrawn on a terminal, every 10 s otherwise)\n"
            "  --threshold=NAME=VAL  change a warning threshold (repeatable)\n"
            "  --list-thresholds     print every warning threshold with its value\n"
            "  --debug               print the CUDA functions bound and the launch sizes chosen\n"
            "  --print-ptx=base|mma  print the PTX of the kernels and exit\n\n"
            "Exit codes: 0 every GPU passed, 6 a warning, 7 a failure, 130 interrupted (Ctrl-C) without a\n"
            "failure, 2 usage, 3 NVML or CUDA unusable, 4 no GPU. See docs/BURN.md.\n");
}

static const char *opt_value(int argc, char **argv, int *i, const char *name, struct gs_err *err)
{
    size_t n = strlen(name);
    const char *a = argv[*i];
    if (!strncmp(a, name, n) && a[n] == '=')
        return a + n + 1;
    if (*i + 1 >= argc) {
        gs_err_set(err, GS_E_USAGE, "%s needs a value", name);
        return NULL;
    }
    return argv[++*i];
}

static bool is_opt(const char *a, const char *name)
{
    size_t n = strlen(name);
    return !strncmp(a, name, n) && (a[n] == '\0' || a[n] == '=');
}

static int parse_memory(const char *v, struct gs_burn_opts *o, struct gs_err *err)
{
    char *end;
    double x = strtod(v, &end);
    if (end == v || !isfinite(x) || x <= 0)
        goto bad;
    if (!strcmp(end, "%")) {
        if (x > 100)
            goto bad;
        o->memory_share = x / 100;
        o->memory_bytes = 0;
        return 0;
    }
    double scale = !*end || !strcmp(end, "B") ? 1
                   : !strcmp(end, "K") || !strcmp(end, "KiB") ? 1024.0
                   : !strcmp(end, "M") || !strcmp(end, "MiB") ? 1048576.0
                   : !strcmp(end, "G") || !strcmp(end, "GiB") ? 1073741824.0
                   : !strcmp(end, "T") || !strcmp(end, "TiB") ? 1099511627776.0 : 0;
    if (!scale || x * scale < 65536 || x * scale > 1e15)
        goto bad;
    o->memory_bytes = (uint64_t)(x * scale);
    return 0;
bad:
    return gs_err_set(err, GS_E_USAGE, "--memory: '%s' is not a share of free memory (90%%) or a size (4G, 512M)", v);
}

static int parse_duration(const char *v, const char *name, int64_t min_ms, int64_t *ms, struct gs_err *err)
{
    *ms = v ? gs_health_duration_ms(v) : -1;
    if (*ms < min_ms)
        return gs_err_set(err, GS_E_USAGE, "%s: '%s' is not a duration of at least %lld ms (60s, 10m, 1h)", name,
                          v ? v : "", (long long)min_ms);
    return 0;
}

/* One option at argv[*i]: 0 consumed, 1 done (help, lists), or a negative errc. */
static int parse_one(int argc, char **argv, int *i, struct gs_burn_opts *o, struct gs_err *err)
{
    const char *a = argv[*i], *v;
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
        usage(stdout);
        return 1;
    }
    if (is_opt(a, "--duration"))
        return parse_duration(opt_value(argc, argv, i, "--duration", err), "--duration", 1000, &o->duration_ms, err);
    if (is_opt(a, "--interval"))
        return parse_duration(opt_value(argc, argv, i, "--interval", err), "--interval", 100, &o->interval_ms, err);
    if (is_opt(a, "--id") || !strcmp(a, "-i"))
        return (o->only_ids = opt_value(argc, argv, i, a[1] == 'i' ? "-i" : "--id", err)) ? 0 : -GS_E_USAGE;
    if (is_opt(a, "--memory"))
        return (v = opt_value(argc, argv, i, "--memory", err)) ? parse_memory(v, o, err) : -GS_E_USAGE;
    if (is_opt(a, "--workload"))
        return (v = opt_value(argc, argv, i, "--workload", err)) ? gs_burn_parse_workloads(v, &o->workloads, err)
                                                                 : -GS_E_USAGE;
    if (!strcmp(a, "--json") || !strcmp(a, "--format=json")) {
        o->json = true;
        return 0;
    }
    if (is_opt(a, "--db"))
        return (o->db = opt_value(argc, argv, i, "--db", err)) ? 0 : -GS_E_USAGE;
    if (is_opt(a, "--status")) {
        if (!(o->status = opt_value(argc, argv, i, "--status", err)))
            return -GS_E_USAGE;
        return strcmp(o->status, "auto") && strcmp(o->status, "off")
                   ? gs_err_set(err, GS_E_USAGE, "--status: auto or off") : 0;
    }
    if (is_opt(a, "--threshold"))
        return (v = opt_value(argc, argv, i, "--threshold", err)) ? gs_burn_threshold_set(&o->th, v, err) : -GS_E_USAGE;
    if (!strcmp(a, "--list-thresholds")) {
        gs_burn_thresholds_list(&o->th, stdout);
        return 1;
    }
    if (!strcmp(a, "--debug")) {
        o->debug = true;
        return 0;
    }
    if (is_opt(a, "--print-ptx")) {
        if (!(v = opt_value(argc, argv, i, "--print-ptx", err)))
            return -GS_E_USAGE;
        return gs_burn_print_ptx(v) < 0 ? gs_err_set(err, GS_E_USAGE, "--print-ptx: base or mma") : 1;
    }
    return gs_err_set(err, GS_E_USAGE, "burn: unknown option '%s' (see gpuscope burn --help)", a);
}

int cmd_burn(int argc, char **argv, const struct gs_cmd_ctx *ctx)
{
    struct gs_burn_opts o;
    struct gs_err err = { 0 };
    (void)ctx;
    gs_burn_opts_default(&o);
    for (int i = 1; i < argc; i++) {
        int rc = parse_one(argc, argv, &i, &o, &err);
        if (rc > 0)
            return GS_EXIT_OK;
        if (rc < 0) {
            gs_err_print(&err);
            return GS_EXIT_USAGE;
        }
    }
    int code = gs_burn_run(&o, &err);
    if (err.code)
        gs_err_print(&err);
    return code;
}
