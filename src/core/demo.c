/* SPDX-License-Identifier: MIT */
/* demo.c - locate the bundled NVML simulator for --demo (see demo.h). */
#include "core/demo.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef GS_PREFIX
#define GS_PREFIX "/usr/local"
#endif

static int exe_dir(char *out, size_t len)
{
    ssize_t n = readlink("/proc/self/exe", out, len - 1);
    if (n <= 0)
        return -1;
    out[n] = '\0';
    char *slash = strrchr(out, '/');
    if (!slash)
        return -1;
    *slash = '\0';
    return 0;
}

int gs_demo_find(const char *rel_build, const char *rel_install, char *out, unsigned len)
{
    char dir[PATH_MAX];
    char cand[PATH_MAX + 256];

    if (exe_dir(dir, sizeof(dir)) == 0) {
        snprintf(cand, sizeof(cand), "%s/%s", dir, rel_build);
        if (access(cand, R_OK) == 0 && (size_t)snprintf(out, len, "%s", cand) < len)
            return 0;
        snprintf(cand, sizeof(cand), "%s/../%s", dir, rel_install);
        if (access(cand, R_OK) == 0 && (size_t)snprintf(out, len, "%s", cand) < len)
            return 0;
    }
    snprintf(cand, sizeof(cand), "%s/%s", GS_PREFIX, rel_install);
    if (access(cand, R_OK) == 0 && (size_t)snprintf(out, len, "%s", cand) < len)
        return 0;
    return -1;
}

int gs_demo_setup(struct gs_err *err)
{
    char lib[PATH_MAX];
    char scen[PATH_MAX];

    if (gs_demo_find("sim/current/libnvidia-ml.so.1", "lib/gpuscope/sim/current/libnvidia-ml.so.1",
                     lib, sizeof(lib)) < 0) {
        gs_err_set(err, GS_E_NO_LIBRARY, "--demo: the bundled NVML simulator was not found");
        gs_err_hint(err, "run 'make' in the source tree, or 'make install' to put it in %s/lib/gpuscope/sim",
                    GS_PREFIX);
        return -GS_E_NO_LIBRARY;
    }
    setenv("GPUSCOPE_NVML_LIB", lib, 1);
    if (!getenv("GPUSCOPE_SIM_SCENARIO"))
        setenv("GPUSCOPE_SIM_SCENARIO", "demo", 1);
    if (!getenv("GPUSCOPE_SIM_SCENARIO_DIR") &&
        gs_demo_find("../sim/scenarios/demo.scn", "share/gpuscope/scenarios/demo.scn", scen,
                     sizeof(scen)) == 0) {
        char *slash = strrchr(scen, '/');
        *slash = '\0';
        setenv("GPUSCOPE_SIM_SCENARIO_DIR", scen, 1);
    }
    return 0;
}
