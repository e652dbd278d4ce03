/* SPDX-License-Identifier: MIT */
/*
 * drmcost_env.c - the DRM cost model's figures (drmcost.h): which variable
 * sets each class, the defaults once the model is on, and the parsing, kept
 * apart from the interposed calls so that a unit test can link it alone.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "drmcost.h"

static const char *const dc_env[GS_DRMCOST__N] = {
    "GPUSCOPE_SIM_DRM_COST_US",          "GPUSCOPE_SIM_DRM_COST_HWMON_US",
    "GPUSCOPE_SIM_DRM_COST_METRICS_US",  "GPUSCOPE_SIM_DRM_COST_FDINFO_US",
    "GPUSCOPE_SIM_DRM_COST_PROC_US",     "GPUSCOPE_SIM_DRM_COST_OPEN_US",
    "GPUSCOPE_SIM_DRM_COST_PROC_OPEN_US", "GPUSCOPE_SIM_DRM_COST_DIRENT_US",
    "GPUSCOPE_SIM_DRM_COST_LINK_US",
};
/* Defaults once on: bench/bench_filecost's figures of 2026-12-03 on the
 * project's 2-CPU VM (Linux 6.18.44), a real sysfs or procfs file's CPU cost
 * over its tmpfs twin: fdinfo read 1.17-0.60, /proc read 3.77-0.62, sysfs
 * open+close 5.65-2.78, /proc open+close 4.43-3.09, an entry of a /proc
 * listing 0.34-0.21, a /proc/PID/fd/N readlink 3.84-1.52 us. The first is
 * the value given; hwmon and gpu_metrics (-1) take it: they are sysfs
 * attributes too. None holds a driver's own time (amdgpu's SMU messages, the
 * walk of a client's buffers behind fdinfo): no such figure is published
 * (the nearest: ROCm/legacy-rocm-build#1649's 1 ms sensor cache, Linux's
 * 5 ms gpu_metrics cache of "drm/amd/pm: Use driver table structure in
 * smuv13"; docs/SIMULATOR.md, "The DRM tree's cost model"). */
static const double dc_default[GS_DRMCOST__N] = { 0, -1, -1, 0.57, 3.15, 2.87, 1.34, 0.14, 2.32 };

/* ---- the figures -------------------------------------------------------------------- */

int gs_drmcost_parse(const char *name, const char *v, double dflt, double *out)
{
    char *end;

    *out = dflt;
    if (!v || !*v)
        return 0;
    errno = 0;
    double us = strtod(v, &end);
    if (errno || *end || !(us >= 0) || us > 10e6) {
        fprintf(stderr, "gpuscope-sim: %s=%s: not a number of microseconds (0-10000000); using %g\n", name, v,
                dflt);
        return -1;
    }
    *out = us;
    return 0;
}

int gs_drmcost_figures(double us[GS_DRMCOST__N])
{
    int bad = 0;

    bad |= gs_drmcost_parse(dc_env[0], getenv(dc_env[0]), 0, &us[0]);
    if (!(us[0] > 0))
        return bad ? -1 : 0;
    for (int k = 1; k < GS_DRMCOST__N; k++) {
        double dflt = dc_default[k] < 0 ? us[0] : dc_default[k]; /* hwmon, metrics: the attribute's */
        bad |= gs_drmcost_parse(dc_env[k], getenv(dc_env[k]), dflt, &us[k]);
    }
    return bad ? -1 : 1;
}

const char *gs_drmcost_env_name(enum gs_drmcost_class k)
{
    return k < GS_DRMCOST__N ? dc_env[k] : NULL;
}

