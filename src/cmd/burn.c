/* SPDX-License-Identifier: MIT */
/*
 * burn.c - `gpuscope burn`: its option table (cmd/opts.h), then src/burn/. A verified stress
 * test of every selected GPU with a verdict per GPU and an exit status a
 * script can trust (0 only when every GPU passed). docs/BURN.md.
 */
#include "burn/burn.h"
#include "cmd/cmd.h"
#include "cmd/opts.h"
#include "health/report.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* ---- the setters: ctx is the struct gs_burn_opts ---- */

static int o_duration(void *ctx, const char *const *v, struct gs_err *err)
{
    return parse_duration(v[0], "--duration", 1000, &((struct gs_burn_opts *)ctx)->duration_ms, err);
}

static int o_interval(void *ctx, const char *const *v, struct gs_err *err)
{
    return parse_duration(v[0], "--interval", 100, &((struct gs_burn_opts *)ctx)->interval_ms, err);
}

static int o_memory(void *ctx, const char *const *v, struct gs_err *err)
{
    return parse_memory(v[0], ctx, err);
}

static int o_workload(void *ctx, const char *const *v, struct gs_err *err)
{
    return gs_burn_parse_workloads(v[0], &((struct gs_burn_opts *)ctx)->workloads, err);
}

static int o_format(void *ctx, const char *const *v, struct gs_err *err)
{
    if (strcmp(v[0], "json"))
        return gs_err_set(err, GS_E_USAGE, "--format: only json (the default is the text report)");
    ((struct gs_burn_opts *)ctx)->json = true;
    return 0;
}

static int o_status(void *ctx, const char *const *v, struct gs_err *err)
{
    if (strcmp(v[0], "auto") && strcmp(v[0], "off"))
        return gs_err_set(err, GS_E_USAGE, "--status: auto or off");
    ((struct gs_burn_opts *)ctx)->status = v[0];
    return 0;
}

static int o_threshold(void *ctx, const char *const *v, struct gs_err *err)
{
    return gs_burn_threshold_set(&((struct gs_burn_opts *)ctx)->th, v[0], err);
}

static int o_list_thresholds(void *ctx, const char *const *v, struct gs_err *err)
{
    (void)v, (void)err;
    gs_burn_thresholds_list(&((struct gs_burn_opts *)ctx)->th, stdout);
    return GS_OPT_DONE;
}

static int o_print_ptx(void *ctx, const char *const *v, struct gs_err *err)
{
    (void)ctx;
    return gs_burn_print_ptx(v[0]) < 0 ? gs_err_set(err, GS_E_USAGE, "--print-ptx: base or mma") : GS_OPT_DONE;
}

static const struct gs_opt burn_opts[] = {
    { "--duration", 0, "DURATION", o_duration, "how long (default 10m; 60s, 2h ...)",
      .man = "How long to run (default 10m; 60s, 2h ...)." },
    { "--id", 'i', "IDS", NULL, "only these GPUs (index, UUID or PCI bus id, comma-separated)",
      .comp = GS_COMP_GPU, .flags = GS_OPT_LIST, GS_OPT_STORE_STR(struct gs_burn_opts, only_ids),
      .man = "Only these GPUs: indexes, UUIDs or PCI bus ids, comma-separated." },
    { "--memory", 0, "SIZE", o_memory,
      "memory for the memory patterns: a share of free memory (90%, the default)\nor a size (4G, 512M)",
      .man = "Memory for the memory patterns: a share of the free memory (90%, the\n"
             "default) or a size (4G, 512M)." },
    { "--workload", 0, "LIST", o_workload, "compute, tensor, memory (default all; compute = fp32,fp64)",
      .comp = GS_COMP_CHOICES, .choices = "compute fp32 fp64 tensor memory all", .flags = GS_OPT_LIST,
      .man = "Any of\n"
             ".Cm compute\n"
             ".Pq Cm fp32 , Cm fp64 ,\n"
             ".Cm fp32 ,\n"
             ".Cm fp64 ,\n"
             ".Cm tensor ,\n"
             ".Cm memory ,\n"
             ".Cm all\n"
             "(the default)." },
    { "--json", 0, NULL, NULL, "the report as JSON (status lines go to a terminal's stderr)",
      GS_OPT_STORE_TRUE(struct gs_burn_opts, json),
      .man = "The report as JSON; the status lines go to standard error on a terminal." },
    { "--format", 0, "json", o_format, "the same as --json", .flags = GS_OPT_HIDDEN },
    { "--db", 0, "FILE", NULL,
      "also write the samples and the verdict into the recorder's database\n"
      "(gpuscope report shows the burn with its throttling and events)",
      .comp = GS_COMP_FILE, GS_OPT_STORE_STR(struct gs_burn_opts, db),
      .man = "Also write the samples and the verdicts into the recorder's database, so\n"
             "that\n"
             ".Xr gpuscope-report 1\n"
             "shows the burn." },
    { "--interval", 0, "DURATION", o_interval, "sampling and status interval (default 1s)",
      .man = "The sampling and status interval (default 1s)." },
    { "--status", 0, "auto|off", o_status, "the live status lines (auto: redrawn on a terminal, every 10 s otherwise)",
      .comp = GS_COMP_CHOICES,
      .man = "The live status lines: redrawn on a terminal, a block every 10 seconds\n"
             "otherwise\n"
             ".Pq Cm auto ." },
    { "--threshold", 0, "NAME=VAL", o_threshold, "change a warning threshold", .flags = GS_OPT_REPEAT,
      .man = "Change a warning threshold; repeatable." },
    { "--list-thresholds", 0, NULL, o_list_thresholds, "print every warning threshold with its value",
      .man = "Print every warning threshold with its value." },
    { "--debug", 0, NULL, NULL, "print the CUDA functions bound and the launch sizes chosen",
      GS_OPT_STORE_TRUE(struct gs_burn_opts, debug),
      .man = "Print the CUDA functions bound and the launch sizes chosen." },
    { "--print-ptx", 0, "base|mma", o_print_ptx, "print the PTX of the kernels and exit", .comp = GS_COMP_CHOICES,
      .man = "Print the PTX of the kernels and exit." },
};

const struct gs_cli burn_cli = {
    .name = "burn",
    .usage = "gpuscope burn [options]",
    .about = "Load every selected GPU with verified kernels (FP32/FP64 compute, tensor cores, memory patterns)\n"
             "while watching temperature, power, clocks, throttle reasons, Xids, ECC, PCIe and GPU presence;\n"
             "then a verdict per GPU (PASS, WARN, FAIL) with the evidence and what to do.",
    .opts = burn_opts,
    .nopts = GS_NOPTS(burn_opts),
    .footer = "Exit codes: 0 every GPU passed, 6 a warning, 7 a failure, 130 interrupted (Ctrl-C) without a\n"
              "failure, 2 usage, 3 NVML or CUDA unusable, 4 no GPU. See docs/BURN.md.",
};

int cmd_burn(int argc, char **argv, const struct gs_cmd_ctx *ctx)
{
    struct gs_burn_opts o;
    struct gs_err err = { 0 };
    (void)ctx;
    gs_burn_opts_default(&o);
    int rc = gs_cli_parse(&burn_cli, argc, argv, &o, &err);
    if (rc == GS_OPT_DONE)
        return GS_EXIT_OK;
    if (rc < 0) {
        gs_err_print(&err);
        return GS_EXIT_USAGE;
    }
    int code = gs_burn_run(&o, &err);
    if (err.code)
        gs_err_print(&err);
    return code;
}
