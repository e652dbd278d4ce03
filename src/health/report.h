/* SPDX-License-Identifier: MIT */
/*
 * report.h - findings for people (text grouped by severity) and programs
 * (JSON through jansson), threshold overrides by name, and the simulator's
 * virtual clock for sampling a long window without waiting.
 */
#ifndef GS_HEALTH_REPORT_H
#define GS_HEALTH_REPORT_H

#include <jansson.h>
#include <stdio.h>

#include "health/health.h"

/* One finding as a JSON object (severity, code, gpu, pid, title, evidence, cause, action, value). */
json_t *gs_finding_json(const struct gs_finding *f);
/* Print findings grouped by severity; "no problems found" only when there are none. */
void gs_findings_print(FILE *out, const struct gs_findings *f, bool color);

/* Set a threshold by name ("leak_mib_per_s=5"); unknown names and bad values
 * are usage errors. gs_health_cfg_list prints the names with their values. */
int gs_health_cfg_set(struct gs_health_cfg *cfg, const char *assignment, struct gs_err *err);
void gs_health_cfg_list(FILE *out, const struct gs_health_cfg *cfg);

/* Parse "10", "10s", "500ms", "2m", "1h" into milliseconds; -1 if invalid. */
int64_t gs_health_duration_ms(const char *s);

/* The simulator's virtual clock: when the NVML library is gpuscope's simulator
 * and GPUSCOPE_SIM_CLOCK is fixed:T, returns gssimClockStep so a window of N
 * seconds is sampled by stepping the simulated time instead of sleeping
 * (tests; docs/HEALTH.md). Else NULL (file:P clocks are driven from outside,
 * and doctor/watch pace themselves in real time). */
typedef void (*gs_sim_step_fn)(double dt_s);
/* Before opening the sampler: when the clock will be stepped (fixed:T), the
 * backend's read schedule (real-time, 5 s) would hand the first tick's ECC,
 * PCIe-link and NVLink readings on for the whole simulated window, so every
 * reading is read every tick (GPUSCOPE_READ_PERIOD_MS=0 unless already set). */
void gs_sim_stepping_prepare(void);
gs_sim_step_fn gs_sim_clock_stepper(const struct gs_sysinfo *sys);

#endif /* GS_HEALTH_REPORT_H */
