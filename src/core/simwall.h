/* SPDX-License-Identifier: MIT */
/*
 * simwall.h - a wall clock that tests can fix, on the simulator only.
 *
 * Outputs that print the time (nvidia-smi's CSV timestamp, the table's date
 * line, -q's "Timestamp") can only be compared byte for byte with a real
 * capture when the clock reads what the capture read. With
 * GPUSCOPE_SIM_WALLCLOCK=2026-07-14T08:12:38.696Z (UTC; or seconds since the
 * epoch) the snapshots of a run on gpuscope's NVML simulator start at that
 * instant and advance with the monotonic clock. On a real driver the variable
 * is ignored: a real GPU is always shown at the real time.
 */
#ifndef GS_SIMWALL_H
#define GS_SIMWALL_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

/* Replace *wall by the fixed clock when simulated and the variable is set and
 * valid; mono_ns is the snapshot's CLOCK_MONOTONIC time. */
void gs_simwall_apply(bool simulated, uint64_t mono_ns, struct timespec *wall);

/* Parse "YYYY-MM-DDTHH:MM:SS[.fff][Z]" (UTC) or "SECONDS[.fff]"; false if bad. */
bool gs_simwall_parse(const char *text, struct timespec *out);

#endif /* GS_SIMWALL_H */
