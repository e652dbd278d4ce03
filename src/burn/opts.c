/* SPDX-License-Identifier: MIT */
/*
 * opts.c - burn's defaults, the --workload list and the --threshold names
 * (docs/BURN.md documents each default and why).
 */
#include "burn/burn.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "burn/kernels.h"

void gs_burn_opts_default(struct gs_burn_opts *o)
{
    memset(o, 0, sizeof(*o));
    o->duration_ms = 600000;
    o->interval_ms = 1000;
    o->memory_share = 0.9;
    o->workloads = GS_BURN_WL_ALL;
    o->launch_ms = 50;
    o->iteration_ms = 500;
    o->status = "auto";
    o->th = (struct gs_burn_thresholds){ .slowdown_margin_c = 0, .clock_low_ratio = 0.75, .clock_low_share = 0.5,
                                         .pcie_low_share = 0.5, .pcie_replay_factor = 1, .sibling_ratio = 0.9, .warmup_s = 5,
                                         .load_util_pct = 50 };
}

int gs_burn_parse_workloads(const char *s, unsigned *mask, struct gs_err *err)
{
    static const struct { const char *name; unsigned bits; } names[] = {
        { "compute", (1u << GS_BW_FP32) | (1u << GS_BW_FP64) }, { "fp32", 1u << GS_BW_FP32 },
        { "fp64", 1u << GS_BW_FP64 }, { "tensor", 1u << GS_BW_TENSOR }, { "memory", 1u << GS_BW_MEMORY },
        { "all", GS_BURN_WL_ALL },
    };
    char buf[256], *save = NULL;
    *mask = 0;
    snprintf(buf, sizeof(buf), "%s", s);
    for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        size_t i;
        for (i = 0; i < sizeof(names) / sizeof(names[0]) && strcmp(names[i].name, tok); i++)
            ;
        if (i == sizeof(names) / sizeof(names[0]))
            return gs_err_set(err, GS_E_USAGE, "--workload: unknown workload '%s' (compute, fp32, fp64, tensor, memory, "
                              "all)", tok);
        *mask |= names[i].bits;
    }
    if (!*mask)
        return gs_err_set(err, GS_E_USAGE, "--workload: name at least one of compute, tensor, memory");
    return 0;
}

enum th_type { TH_I32, TH_U32, TH_DBL };
static const struct {
    const char *name;
    enum th_type type;
    size_t off;
    double min, max;
} th_fields[] = {
    { "slowdown_margin_c", TH_I32, offsetof(struct gs_burn_thresholds, slowdown_margin_c), -50, 50 },
    { "clock_low_ratio", TH_DBL, offsetof(struct gs_burn_thresholds, clock_low_ratio), 0, 1 },
    { "clock_low_share", TH_DBL, offsetof(struct gs_burn_thresholds, clock_low_share), 0, 1 },
    { "pcie_low_share", TH_DBL, offsetof(struct gs_burn_thresholds, pcie_low_share), 0, 1 },
    { "pcie_replay_factor", TH_DBL, offsetof(struct gs_burn_thresholds, pcie_replay_factor), 0, 1000 },
    { "sibling_ratio", TH_DBL, offsetof(struct gs_burn_thresholds, sibling_ratio), 0, 1 },
    { "warmup_s", TH_U32, offsetof(struct gs_burn_thresholds, warmup_s), 0, 86400 },
    { "load_util_pct", TH_U32, offsetof(struct gs_burn_thresholds, load_util_pct), 0, 100 },
};
#define NTH (sizeof(th_fields) / sizeof(th_fields[0]))

int gs_burn_threshold_set(struct gs_burn_thresholds *th, const char *a, struct gs_err *err)
{
    const char *eq = strchr(a, '=');
    if (!eq)
        return gs_err_set(err, GS_E_USAGE, "--threshold: '%s' is not NAME=VALUE", a);
    for (size_t i = 0; i < NTH; i++) {
        if (strlen(th_fields[i].name) != (size_t)(eq - a) || strncmp(th_fields[i].name, a, (size_t)(eq - a)))
            continue;
        char *end;
        double v = strtod(eq + 1, &end);
        if (end == eq + 1 || *end || !isfinite(v) || v < th_fields[i].min || v > th_fields[i].max)
            return gs_err_set(err, GS_E_USAGE, "--threshold: %s must be a number from %g to %g, not '%s'",
                              th_fields[i].name, th_fields[i].min, th_fields[i].max, eq + 1);
        char *p = (char *)th + th_fields[i].off;
        if (th_fields[i].type == TH_I32)
            *(int32_t *)p = (int32_t)v;
        else if (th_fields[i].type == TH_U32)
            *(uint32_t *)p = (uint32_t)v;
        else
            *(double *)p = v;
        return 0;
    }
    return gs_err_set(err, GS_E_USAGE, "--threshold: unknown name '%.*s' (see gpuscope burn --list-thresholds)",
                      (int)(eq - a), a);
}

void gs_burn_thresholds_list(const struct gs_burn_thresholds *th, void *fp)
{
    FILE *out = fp;
    for (size_t i = 0; i < NTH; i++) {
        const char *p = (const char *)th + th_fields[i].off;
        if (th_fields[i].type == TH_I32)
            fprintf(out, "%s=%d\n", th_fields[i].name, *(const int32_t *)p);
        else if (th_fields[i].type == TH_U32)
            fprintf(out, "%s=%u\n", th_fields[i].name, *(const uint32_t *)p);
        else
            fprintf(out, "%s=%g\n", th_fields[i].name, *(const double *)p);
    }
}

int gs_burn_print_ptx(const char *which)
{
    if (!strcmp(which, "base"))
        fputs(gs_burn_ptx_base, stdout);
    else if (!strcmp(which, "mma"))
        fputs(gs_burn_ptx_mma, stdout);
    else
        return -1;
    return 0;
}
