/* SPDX-License-Identifier: MIT */
/*
 * drmcost.h - the DRM simulator's cost model (drmcost.c, a preloaded library):
 * the classes of file operation it charges and the parsing of their figures,
 * which tests/unit/test_drm_cost.c checks.
 */
#ifndef GS_SIM_DRMCOST_H
#define GS_SIM_DRMCOST_H

enum gs_drmcost_class {
    GS_DRMCOST_SYSFS,     /* a read of a sysfs attribute (gpu_busy_percent, pp_dpm_*, mem_info_*) */
    GS_DRMCOST_HWMON,     /* a read of an hwmon attribute (temp*_input, power1_average) */
    GS_DRMCOST_METRICS,   /* a read of amdgpu's gpu_metrics */
    GS_DRMCOST_FDINFO,    /* a read of /proc/PID/fdinfo/N */
    GS_DRMCOST_PROC,      /* a read of another /proc file (stat, status, loadavg) */
    GS_DRMCOST_OPEN,      /* an open (and its close) of a sysfs file or directory */
    GS_DRMCOST_PROC_OPEN, /* the same in /proc */
    GS_DRMCOST_DIRENT,    /* one entry of a directory listing */
    GS_DRMCOST_LINK,      /* a readlink (/proc/PID/fd/N) */
    GS_DRMCOST__N,
    GS_DRMCOST_NONE = GS_DRMCOST__N,
};

/* One figure: v (NULL or "" for unset: dflt) as microseconds in *out. 0, or
 * -1 with a line on stderr naming name when v is not a number in 0-10000000
 * (then *out is dflt). */
int gs_drmcost_parse(const char *name, const char *v, double dflt, double *out);
/* Every class's figure from the environment: 0 when the model is off
 * (GPUSCOPE_SIM_DRM_COST_US unset, 0 or bad), 1 when on, -1 when on but
 * some figure was refused (it keeps its default). */
int gs_drmcost_figures(double us[GS_DRMCOST__N]);
/* The variable of class k ("GPUSCOPE_SIM_DRM_COST_FDINFO_US"). */
const char *gs_drmcost_env_name(enum gs_drmcost_class k);

#endif /* GS_SIM_DRMCOST_H */
