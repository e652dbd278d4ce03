/* SPDX-License-Identifier: MIT */
/*
 * demo.h - `gpuscope --demo`: point the NVML backend at the bundled simulator
 * (build tree or installed copy) and its "demo" scenario.
 */
#ifndef GS_DEMO_H
#define GS_DEMO_H

#include "core/err.h"

/* Sets GPUSCOPE_NVML_LIB to the simulator library and, unless already set,
 * GPUSCOPE_SIM_SCENARIO=demo and GPUSCOPE_SIM_SCENARIO_DIR to the scenarios
 * directory found beside the binary. Returns 0 or a negative gs_errc. */
int gs_demo_setup(struct gs_err *err);

/* Find a file that ships with gpuscope: tries, relative to the running binary,
 * the build tree then the install tree. rel_build is relative to the binary's
 * directory, rel_install to its parent. Returns 0 and fills out, or -1. */
int gs_demo_find(const char *rel_build, const char *rel_install, char *out, unsigned len);

#endif /* GS_DEMO_H */
