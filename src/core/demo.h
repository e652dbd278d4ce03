/* SPDX-License-Identifier: MIT */
/*
 * demo.h - `gpuscope --demo[=SCENARIO]`: point the NVML backend at the bundled
 * simulator (build tree or installed copy) and its "demo" scenario, and for a
 * mixed machine the DRM backend at the bundled DRM simulator's tree.
 */
#ifndef GS_DEMO_H
#define GS_DEMO_H

#include "core/err.h"

/* Sets GPUSCOPE_NVML_LIB to the simulator library and, unless already set,
 * GPUSCOPE_SIM_SCENARIO (scenario, NULL: "demo") and GPUSCOPE_SIM_SCENARIO_DIR
 * to the scenarios directory found beside the binary. A scenario with a DRM
 * twin (<scenario>.drm, e.g. "mixed") also gets AMD and Intel GPUs: the DRM
 * simulator (drmsim) lays out their sysfs + procfs tree in a private
 * directory and keeps it moving until this process exits (GPUSCOPE_SYS_ROOT,
 * GPUSCOPE_PROC_ROOT, GPUSCOPE_BACKENDS=nvml,drm). Returns 0 or a negative gs_errc. */
int gs_demo_setup(const char *scenario, struct gs_err *err);

#endif /* GS_DEMO_H */
