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

#endif /* GS_DEMO_H */
