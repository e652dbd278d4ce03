/* SPDX-License-Identifier: MIT */
/* clock.c - the monotonic and real-time clocks (see clock.h). */
#include "lib/clock.h"

#include <time.h>

static struct timespec now(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return ts;
}

uint64_t gs_clock_mono_ns(void)
{
    struct timespec ts = now(CLOCK_MONOTONIC);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int64_t gs_clock_mono_ms(void)
{
    struct timespec ts = now(CLOCK_MONOTONIC);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

double gs_clock_mono_s(void)
{
    struct timespec ts = now(CLOCK_MONOTONIC);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int64_t gs_clock_wall_ms(void)
{
    struct timespec ts = now(CLOCK_REALTIME);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}
