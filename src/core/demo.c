/* SPDX-License-Identifier: MIT */
/* demo.c - point NVML at the bundled simulator for --demo (see demo.h). */
#include "core/demo.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "core/paths.h"

#ifndef GS_PREFIX
#define GS_PREFIX "/usr/local"
#endif

int gs_demo_setup(struct gs_err *err)
{
    char lib[PATH_MAX];
    char scen[PATH_MAX];

    if (gs_path_shipped("sim/current/libnvidia-ml.so.1", "lib/gpuscope/sim/current/libnvidia-ml.so.1", lib,
                        sizeof(lib)) < 0) {
        gs_err_set(err, GS_E_NO_LIBRARY, "--demo: the bundled NVML simulator was not found");
        gs_err_hint(err, "run 'make' in the source tree, or 'make install' to put it in %s/lib/gpuscope/sim",
                    GS_PREFIX);
        return -GS_E_NO_LIBRARY;
    }
    setenv("GPUSCOPE_NVML_LIB", lib, 1);
    if (!getenv("GPUSCOPE_SIM_SCENARIO"))
        setenv("GPUSCOPE_SIM_SCENARIO", "demo", 1);
    if (!getenv("GPUSCOPE_SIM_SCENARIO_DIR") &&
        gs_path_shipped("../sim/scenarios/demo.scn", "share/gpuscope/scenarios/demo.scn", scen,
                        sizeof(scen)) == 0) {
        *strrchr(scen, '/') = '\0';
        setenv("GPUSCOPE_SIM_SCENARIO_DIR", scen, 1);
    }
    return 0;
}
