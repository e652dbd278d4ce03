/* SPDX-License-Identifier: MIT */
/*
 * clock.h - the clocks, read one way everywhere: monotonic time for intervals,
 * deadlines and ages (never steps), real time for stamps a person or another
 * program reads. The simulator's virtual clocks are not here: a simulated run's
 * fixed wall clock is core/simwall.h, record's virtual ticks are --step/--clock-file.
 */
#ifndef GS_LIB_CLOCK_H
#define GS_LIB_CLOCK_H

#include <stdint.h>

uint64_t gs_clock_mono_ns(void); /* CLOCK_MONOTONIC, nanoseconds */
int64_t gs_clock_mono_ms(void);  /* CLOCK_MONOTONIC, milliseconds */
double gs_clock_mono_s(void);    /* CLOCK_MONOTONIC, seconds */
int64_t gs_clock_wall_ms(void);  /* CLOCK_REALTIME, milliseconds since the epoch */

#endif
